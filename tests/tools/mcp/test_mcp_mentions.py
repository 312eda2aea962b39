"""Finding `@server:uri` resource mentions in a user's prompt."""

from __future__ import annotations

from handrail.tools.mcp.mentions import ResourceMention, find_mentions


def test_mentions_of_connected_servers_are_found_once_in_order() -> None:
    text = "compare @docs:file:///a.md with @docs:file:///b.md, then @docs:file:///a.md again."
    assert find_mentions(text, {"docs"}) == [
        ResourceMention("docs", "file:///a.md"),
        ResourceMention("docs", "file:///b.md"),
    ]


def test_text_that_only_looks_like_a_mention_is_left_alone() -> None:
    assert find_mentions("mail ann@docs:x or @other:file:///a", {"docs"}) == []  # an address; not connected
    assert find_mentions("@docs:not-a-uri", {"docs"}) == []
    assert find_mentions("(see @docs:demo://x/1).", {"docs"}) == [ResourceMention("docs", "demo://x/1")]
