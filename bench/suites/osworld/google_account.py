"""The Google account OSWorld's Drive tasks use, read from OSWorld's own settings folder.

`--osworld-google DIR` names OSWorld's `evaluation_examples/settings` folder,
so a user reuses the files its harness already reads:

- `googledrive/settings.yml`, PyDrive's settings: `save_credentials_file`
  names the OAuth credentials PyDrive saved (a relative name is relative to
  OSWorld's checkout, two folders above DIR, where its harness runs);
- that credentials file, oauth2client's JSON: `refresh_token`, `client_id`,
  `client_secret` and `token_uri` (Google's token endpoint), which give an
  access token as oauth2client refreshes one;
- `google/settings.json`: the account's `email` and `password`, which the
  `login` step types into Chrome's sign-in page.

A file or field that is missing is one `GoogleSettingsError` naming both. The
secrets are kept on the object only: its repr names the folder, never them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from protocols import TroupeError

GOOGLE_TOKEN_URI = "https://oauth2.googleapis.com/token"
"""oauth2client's token endpoint when a credentials file names none."""


class GoogleSettingsError(TroupeError, ValueError):
    """An unreadable Google settings file, or one without a field the account needs."""


def _read(path: Path, parse: Any) -> dict[str, Any]:
    try:
        value = parse(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise GoogleSettingsError(f"Google settings: {path}: no such file") from None
    except (OSError, ValueError, yaml.YAMLError) as exc:
        raise GoogleSettingsError(f"Google settings: {path}: unreadable ({type(exc).__name__})") from None
    if not isinstance(value, dict):
        raise GoogleSettingsError(f"Google settings: {path}: not a mapping of fields")
    return value


def _field(values: dict[str, Any], name: str, path: Path) -> str:
    value = values.get(name)
    if not isinstance(value, str) or not value:
        raise GoogleSettingsError(f"Google settings: {path}: no field {name!r}")
    return value


@dataclass(frozen=True)
class GoogleAccount:
    folder: Path
    client_id: str = field(repr=False)
    client_secret: str = field(repr=False)
    refresh_token: str = field(repr=False)
    token_uri: str = field(repr=False)
    credentials_file: Path = field(repr=False)
    email: str = field(repr=False)
    password: str = field(repr=False)

    @classmethod
    def load(cls, folder: Path) -> GoogleAccount:
        settings_file = folder / "googledrive" / "settings.yml"
        settings = _read(settings_file, yaml.safe_load)
        named = Path(_field(settings, "save_credentials_file", settings_file))
        credentials_file = named if named.is_absolute() else folder.parent.parent / named
        credentials = _read(credentials_file, json.loads)
        login_file = folder / "google" / "settings.json"
        login = _read(login_file, json.loads)
        return cls(folder, client_id=_field(credentials, "client_id", credentials_file),
                   client_secret=_field(credentials, "client_secret", credentials_file),
                   refresh_token=_field(credentials, "refresh_token", credentials_file),
                   token_uri=credentials.get("token_uri") or GOOGLE_TOKEN_URI, credentials_file=credentials_file,
                   email=_field(login, "email", login_file), password=_field(login, "password", login_file))

