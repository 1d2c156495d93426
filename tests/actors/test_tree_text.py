from actors.backends.sim.world import World
from actors.llm.tree_text import render_tree
from protocols import BBox, UIElement


def test_tree_renders_ids_roles_names_texts_and_boxes_indented():
    world = World.from_layout([{"role": "textbox", "name": "Name"}, {"role": "button", "name": "OK"}])
    world.widgets[0].value = "alice"
    assert render_tree(world.tree()) == "\n".join([
        '[root] window "Simulated form" @(0,0 1280x800)',
        '  [w0] textbox "Name" text="alice" @(40,80 400x40)',
        '  [w1] button "OK" @(40,128 400x40)',
    ])


def test_anonymous_containers_are_folded_and_long_text_is_cut():
    tree = UIElement(node_id="1", role="group", children=(
        UIElement(node_id="2", role="generic", children=(
            UIElement(node_id="3", role="paragraph", text="x" * 200, bbox=BBox(0, 0, 1, 1)),)),))
    text = render_tree(tree, max_text=10)
    assert text == '[3] paragraph text="xxxxxxxxx…" @(0,0 1x1)'


def test_output_is_bounded_and_says_how_much_was_left_out():
    tree = UIElement(node_id="r", role="list", name="items", children=tuple(
        UIElement(node_id=str(i), role="item", name=f"item {i}") for i in range(100)))
    lines = render_tree(tree, max_lines=11).splitlines()
    assert len(lines) == 12 and lines[-1] == "... (90 more elements)"
