"""bench.perf.waa_memory on a real WAA server: 32 programs of the largest size, built to cost the
parser the most, posted at once keep its peak resident memory under 300 MiB, and each is answered."""

from bench.perf.waa_memory import LIMIT_MIB, measure


def test_32_concurrent_costliest_programs_stay_under_300_mib():
    before, peak, answers = measure(32)
    assert sum(answers.values()) == 32 and set(answers) <= {200, 400}, answers
    assert peak < LIMIT_MIB, (before, peak)
