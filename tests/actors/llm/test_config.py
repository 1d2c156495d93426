"""Where the LLM settings come from, and the errors a bad configuration gets."""

import pytest

from actors.errors import ConfigError
from actors.llm.config import DEFAULT_BASE_URL, load_config


def test_flags_win_over_the_file_which_wins_over_the_environment(tmp_path):
    config_file = tmp_path / "llm.toml"
    config_file.write_text('[llm]\nmodel = "file-model"\napi_key = "file-key"\ntimeout = 12\n'
                           '[llm.prices."file-model"]\ninput = 1.0\noutput = 2.0\n')
    env = {"OPENAI_BASE_URL": "http://env/v1", "OPENAI_MODEL": "env-model", "OPENAI_API_KEY": "env-key"}
    config = load_config(model="flag-model", config_file=config_file, environ=env)
    assert (config.model, config.base_url, config.api_key, config.timeout) == ("flag-model", "http://env/v1",
                                                                               "file-key", 12)
    assert load_config(config_file=config_file, environ=env).cost(1_000_000, 1_000_000) == pytest.approx(3.0)
    from_env = load_config(environ=env)
    assert (from_env.model, from_env.api_key) == ("env-model", "env-key")
    assert load_config(model="m", environ={"MY_KEY": "k"}, key_env="MY_KEY").api_key == "k"
    assert load_config(model="m", environ={}).base_url == DEFAULT_BASE_URL


@pytest.mark.parametrize("text, error", [
    ('model = "m"\ntimeout = "soon"', r"Expected `float \| null`, got `str` - at `\$.timeout`"),
    ('model = "m"\ntemperature = 1', r"Object contains unknown field `temperature`"),
    ('model = "m"\n[prices.m]\ninput = 1', r"missing required field `output` - at `\$.prices\[...\]`"),
    ("model = ", "is not valid TOML"),
])
def test_a_malformed_config_file_names_the_file_and_the_field(tmp_path, text, error):
    path = tmp_path / "llm.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=error) as caught:
        load_config(config_file=path, environ={})
    assert str(path) in str(caught.value)


def test_missing_or_impossible_settings_are_named():
    with pytest.raises(ConfigError, match="no LLM model given"):
        load_config(environ={})
    with pytest.raises(ConfigError, match="must start with http:// or https://, got 'localhost:8000'"):
        load_config(model="m", base_url="localhost:8000", environ={})
    with pytest.raises(ConfigError, match="timeout must be positive"):
        load_config(model="m", timeout=0, environ={})
    with pytest.raises(ConfigError, match="cannot read LLM config file"):
        load_config(config_file="/nonexistent/llm.toml", environ={})


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "0.0"])
def test_a_timeout_that_is_no_duration_is_refused_naming_it(tmp_path, value):
    """Issue 17: `timeout = nan` was accepted and made every LLM call fail as the agent's fault."""
    path = tmp_path / "llm.toml"
    path.write_text(f'model = "m"\ntimeout = {value}\n')
    with pytest.raises(ConfigError, match=r"timeout must be positive and finite \(seconds\), got"):
        load_config(config_file=path, environ={})
