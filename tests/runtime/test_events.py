import anyio
import pytest

from runtime.capacity import Capacity
from runtime.events import EventBus

pytestmark = pytest.mark.anyio


async def test_every_subscriber_gets_every_event_in_order():
    bus = EventBus()
    with bus.subscribe() as first, bus.subscribe() as second:
        for n in range(5):
            bus.publish(n)
        bus.close()
        assert [e async for e in first] == [0, 1, 2, 3, 4]
        assert [e async for e in second] == [0, 1, 2, 3, 4]


async def test_slow_subscriber_loses_oldest_events_counted_and_never_blocks_publish():
    bus = EventBus()
    with bus.subscribe(maxlen=3) as slow:
        with anyio.fail_after(1):
            for n in range(100):
                bus.publish(n)  # synchronous: cannot wait for the reader
        assert slow.dropped == 97
        assert slow.take_dropped() == 97 and slow.take_dropped() == 0
        bus.close()
        assert [e async for e in slow] == [97, 98, 99]


async def test_subscriber_wakes_for_events_published_while_it_waits():
    bus = EventBus()
    received = []
    with bus.subscribe() as sub:
        async with anyio.create_task_group() as tg:
            async def read():
                async for event in sub:
                    received.append(event)
            tg.start_soon(read)
            await anyio.sleep(0.01)
            bus.publish("a")
            await anyio.sleep(0.01)
            bus.publish("b")
            bus.close()
    assert received == ["a", "b"]


async def test_capacity_bounds_concurrent_holders_across_tasks():
    capacity = Capacity("llm", 2)
    active = 0
    seen = []

    async def call():
        nonlocal active
        async with capacity.slot():
            active += 1
            seen.append(active)
            await anyio.sleep(0.01)
            active -= 1

    async with anyio.create_task_group() as tg:
        for _ in range(6):
            tg.start_soon(call)
    assert max(seen) == 2 and capacity.peak == 2 and capacity.in_use == 0


async def test_capacity_needs_at_least_one_slot():
    with pytest.raises(ValueError, match="capacity 'vm' needs at least 1 slot, got 0"):
        Capacity("vm", 0)
