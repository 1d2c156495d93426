from tests.suites.waa import parity


def pytest_terminal_summary(terminalreporter):
    """The differential tests' agreement per metric function, when any of them ran."""
    lines = parity.summary()
    if lines:
        terminalreporter.section("WAA metric parity: troupe's verdicts against WAA's own functions")
        for line in lines:
            terminalreporter.write_line(line)
