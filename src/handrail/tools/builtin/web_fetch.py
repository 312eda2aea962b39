"""WebFetch: fetch a URL (with the user's approval per domain) and answer a prompt about it with a small model."""

from __future__ import annotations

from pydantic import Field

from handrail.permissions.decision import PermissionCheck
from handrail.permissions.pipeline import CallFacts, decide
from handrail.permissions.rules import rule_matches_call
from handrail.tools.builtin._common import ToolInput
from handrail.tools.context import ToolUseContext
from handrail.tools.errors import ToolError
from handrail.tools.protocol import VALID, ToolResult, ValidationResult, build_tool
from handrail.tools.small_model import SmallModelError
from handrail.tools.web_hosts import HostMemory, concern_without_lookup, resolve_host
from handrail.tools.web_page import (
    FetchError,
    HopVerdict,
    HostRefused,
    Page,
    PageCache,
    Redirect,
    fetch_page,
    host_url,
    normalise_url,
    url_host_of,
)

NAME = "WebFetch"
MODEL_CONTENT_CHARS = 100_000
FALLBACK_CHARS = 30_000
PAGES = PageCache()  # per server process; a page asked about twice within 15 minutes is fetched once
HOSTS = HostMemory()  # names found to be non-public, and what each call's prompt warned about


class WebFetchInput(ToolInput):
    # No docstring: it would become the schema description the model sees.
    url: str = Field(description="The URL to fetch content from")
    prompt: str = Field(min_length=1, description="The prompt to run on the fetched content")


PROMPT = """- Fetches content from a specified URL and processes it using an AI model
- Takes a URL and a prompt as input
- Fetches the URL content, converts HTML to markdown
- Processes the content with the prompt using a small, fast model
- Returns the model's response about the content
- Use this tool when you need to retrieve and analyze web content

Usage notes:
  - The URL must be a fully-formed valid URL
  - HTTP URLs will be automatically upgraded to HTTPS
  - The prompt should describe what information you want to extract from the page
  - This tool is read-only and does not modify any files
  - Results may be summarized if the content is very large
  - Only text and HTML pages can be read (no images, PDFs or other binary content)
  - When a URL redirects to a different host, the tool tells you the redirect URL instead of following it. Make a new WebFetch request with the redirect URL to fetch the content."""  # noqa: E501

SYSTEM = "You answer questions about a web page from its content only. Be concise and accurate."


def _model_prompt(page: Page, prompt: str) -> str:
    content = page.text[:MODEL_CONTENT_CHARS]
    cut = " (truncated)" if len(page.text) > MODEL_CONTENT_CHARS else ""
    return (
        f"Web page content from {page.url}{cut}:\n---\n{content}\n---\n\n{prompt}\n\n"
        "Answer from the content above only. Quote exactly where wording matters; keep quotes short."
    )


async def _validate(value: WebFetchInput, ctx: ToolUseContext) -> ValidationResult:
    try:
        normalise_url(value.url)
    except FetchError as exc:
        return ValidationResult(ok=False, message=str(exc))
    return VALID


def _named(ctx: ToolUseContext, url: str) -> bool:
    """Whether an allow rule names the URL's host (`WebFetch(domain:...)`; a tool-wide `WebFetch` does not)."""
    rules = ctx.permission_context.rules_for_tool("allow", NAME)
    return any(rule.specifier is not None and rule_matches_call(rule, NAME, url, behavior="allow") for rule in rules)


async def check_fetch(value: WebFetchInput, ctx: ToolUseContext) -> PermissionCheck:
    """Ask for a URL unless an allow rule covers it (the pipeline then allows; deny rules come first).

    The host is the one the fetch will connect to (its canonical spelling). A host known to be on this
    machine or a private network (by its address, `localhost`, or an earlier lookup) always asks, a
    safety check no mode or tool-wide rule settles, unless an allow rule names it. The name is not looked
    up here: that would tell its DNS server about it before the user said yes.
    """
    try:
        url = normalise_url(value.url)
    except FetchError as exc:
        return PermissionCheck("deny", str(exc))
    check = _check_url(url, ctx)
    if check.safety:
        HOSTS.warned(ctx.tool_use_id, url_host_of(url))  # the call runs only if the user approves this warning
    return check


def _check_url(url: str, ctx: ToolUseContext) -> PermissionCheck:
    host = url_host_of(url)
    suggestion = (f"{NAME}(domain:{host})",)
    if _named(ctx, url):
        return PermissionCheck("passthrough")
    known = HOSTS.known_concern(host)
    if known is not None and known.concern is not None:
        message = (
            f"{known.describe()} is {known.concern}: fetching from it can reach services that are not on the "
            f"public internet, so it needs approval unless an allow rule names the host ({suggestion[0]})"
        )
        return PermissionCheck("ask", message, suggestions=suggestion, safety=True)
    if ctx.permission_context.tool_wide_rule("allow", NAME) is not None:
        return PermissionCheck("passthrough")
    return PermissionCheck("ask", f"fetching a page from {host} needs approval", suggestions=suggestion)


async def _call(value: WebFetchInput, ctx: ToolUseContext) -> ToolResult:
    try:
        return await _fetch(value, ctx)
    finally:
        HOSTS.call_ended(ctx.tool_use_id)


async def _fetch(value: WebFetchInput, ctx: ToolUseContext) -> ToolResult:
    async def hop_allowed(target: str) -> HopVerdict:
        decision = decide(CallFacts(NAME, True, target), _check_url(target, ctx), ctx.permission_context)
        return "follow" if decision.behavior == "allow" else decision.behavior

    async def reach(host: str, first: bool, proxied: bool) -> tuple[str, ...]:
        """The addresses to connect to: looked up now, once; a non-public one only as the user was told.

        Through a proxy the proxy resolves the name: a name this machine cannot resolve is left to it, one this
        machine resolves to a non-public address is judged as without a proxy."""
        resolved = await resolve_host(host)
        if resolved.error is not None and proxied:
            return ()
        if resolved.error is not None:
            raise FetchError(f"{host} could not be resolved ({resolved.error}).")
        if (
            resolved.concern is None
            or concern_without_lookup(host) is not None  # the permission check saw it (an address, localhost)
            or HOSTS.was_warned(ctx.tool_use_id, host)  # ... or knew it from an earlier lookup
            or _named(ctx, host_url(host))
        ):
            return resolved.addresses
        HOSTS.found_non_public(resolved)  # the next call for it asks about exactly this
        if not first:
            raise HostRefused(f"{resolved.describe()} is {resolved.concern}, which needs its own approval")
        raise HostRefused(
            f"Nothing was fetched: {resolved.describe()} is {resolved.concern}, which was not known when this "
            "call was allowed. Fetching from hosts that are not on the public internet needs the user's approval "
            "of that host: call WebFetch again with the same URL to ask for it."
        )

    url = normalise_url(value.url)
    fetched: Page | Redirect | None = PAGES.get(url)
    if fetched is None:
        ctx.report(f"fetching {url}")
        try:
            fetched = await fetch_page(url, hop_allowed, reach=reach)
        except FetchError as exc:
            raise ToolError(str(exc)) from exc
        if isinstance(fetched, Page):
            PAGES.put(url, fetched)
    if isinstance(fetched, Redirect):
        return ToolResult(
            f"REDIRECT DETECTED: {fetched.url} redirects (HTTP {fetched.status}) to {fetched.target}; it was not "
            f"followed because {fetched.reason}. To read it, call WebFetch again with url: {fetched.target} and "
            "the same prompt."
        )
    header = f"{fetched.url} ({fetched.content_type}, {fetched.size} bytes)"
    if ctx.small_model is None:
        return ToolResult(_fallback(fetched, header, "no small model is configured"))
    ctx.report("reading the page")
    try:
        answer = await ctx.small_model.complete(system=SYSTEM, prompt=_model_prompt(fetched, value.prompt))
    except SmallModelError as exc:
        return ToolResult(_fallback(fetched, header, f"the small model failed: {exc}"))
    return ToolResult(f"{header}\n\n{answer}")


def _fallback(page: Page, header: str, why: str) -> str:
    text = page.text[:FALLBACK_CHARS]
    cut = f", truncated to {FALLBACK_CHARS} of {len(page.text)} characters" if len(page.text) > FALLBACK_CHARS else ""
    return f"{header}\nThe prompt was not answered ({why}); here is the page as markdown{cut}:\n\n{text}"


WEB_FETCH = build_tool(
    name=NAME,
    input_model=WebFetchInput,
    description="Fetch a URL and answer a prompt about its content",
    prompt=PROMPT,
    search_hint="fetch url web page http download read website",
    call=_call,
    validate_input=_validate,
    is_read_only=lambda value: True,
    is_concurrency_safe=lambda value: True,
    check_permissions=check_fetch,
    rule_content=lambda value: value.url,
    summary=lambda value: f"Fetch {value.url}",
    interrupt_behavior="cancel",
    max_result_size_chars=100_000,
)
