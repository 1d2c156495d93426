"""bench.perf.admission on real processes: with 300 slow connections held at each, the node, the
viewer and the WAA server each serve a well-behaved client within a second."""

from bench.perf.admission import LIMIT, measure


def test_a_good_client_is_served_within_a_second_past_300_slow_connections_on_each_server():
    served = measure(300)
    assert [one.server for one in served] == ["node (websocket)", "viewer (page)", "WAA server (/probe)"]
    for one in served:
        assert one.answer in ("websocket open", "200") and one.seconds <= LIMIT, one
