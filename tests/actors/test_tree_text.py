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


def test_output_is_bounded_and_says_which_subtrees_were_left_out():
    tree = UIElement(node_id="r", role="list", name="items", children=tuple(
        UIElement(node_id=str(i), role="group", name=f"group {i}", children=(
            UIElement(node_id=f"{i}.a", role="item", name="a"), UIElement(node_id=f"{i}.b", role="item", name="b")))
        for i in range(100)))
    lines = render_tree(tree, max_lines=10).splitlines()
    assert lines[9] == '    [2.b] item "b"' and len(lines) == 10 + 6
    assert lines[10] == '  [3] group "group 3" … elided: 3 element(s), over the budget'
    assert lines[14] == '  [7] group "group 7" … elided: 3 element(s), over the budget'
    assert lines[-1] == "... (276 more elements in 92 more subtrees, over the budget)"


def test_the_token_budget_bounds_the_text():
    tree = UIElement(node_id="r", role="list", name="items", children=tuple(
        UIElement(node_id=str(i), role="item", name=f"item number {i}") for i in range(10_000)))
    text = render_tree(tree, max_tokens=500)
    shown = "\n".join(line for line in text.splitlines() if "over the budget" not in line)
    assert 1900 < len(shown) + 1 <= 500 * 4  # about four characters a token
    assert text.endswith("more subtrees, over the budget)") and len(text) < 500 * 4 + 600
