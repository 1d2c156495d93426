"""The loader of WAA's own code (reference.py): it imports the metrics, getters and evaluate(),
and a library it stands in for fails loudly when called."""

import sys

import pytest

from tests.suites.waa import reference


def test_the_reference_metrics_getters_and_evaluate_import():
    assert callable(reference.metrics().compare_table)
    assert callable(reference.getters().get_vm_file)
    assert callable(reference.desktop_env().DesktopEnv.evaluate)


def test_a_stood_in_library_raises_when_a_path_calls_it():
    reference.metrics()
    stubbed = [name for name in reference.STUBBED if isinstance(sys.modules.get(name), reference.StubModule)]
    if not stubbed:
        pytest.skip("every library the loader can stand in for is installed")
    with pytest.raises(reference.ReferenceStubCalled, match=stubbed[0]):
        getattr(sys.modules[stubbed[0]], "anything")()
