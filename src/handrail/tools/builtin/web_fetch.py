"""WebFetch: fetch a URL (with the user's approval per domain) and answer a prompt about it with a small model."""

from __future__ import annotations

from pydantic import Field

from handrail.permissions.decision import PermissionCheck
from handrail.permissions.pipeline import CallFacts, decide
from handrail.permissions.rules import rule_matches_call, url_host
from handrail.tools.builtin._common import ToolInput
from handrail.tools.context import ToolUseContext
from handrail.tools.errors import ToolError
from handrail.tools.protocol import VALID, ToolResult, ValidationResult, build_tool
from handrail.tools.small_model import SmallModelError
from handrail.tools.web_page import FetchError, HopVerdict, Page, PageCache, Redirect, fetch_page, normalise_url

NAME = "WebFetch"
MODEL_CONTENT_CHARS = 100_000
FALLBACK_CHARS = 30_000
PAGES = PageCache()  # per server process; a page asked about twice within 15 minutes is fetched once


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


async def check_fetch(value: WebFetchInput, ctx: ToolUseContext) -> PermissionCheck:
    """Ask for a URL unless an allow rule covers it (the pipeline then allows; deny rules come first)."""
    host = url_host(value.url) or value.url
    allowed = any(
        rule.specifier is None or rule_matches_call(rule, NAME, value.url, behavior="allow")
        for rule in ctx.permission_context.rules_for_tool("allow", NAME)
    )
    if allowed:
        return PermissionCheck("passthrough")
    return PermissionCheck(
        "ask", f"fetching a page from {host} needs approval", suggestions=(f"{NAME}(domain:{host})",)
    )


async def _call(value: WebFetchInput, ctx: ToolUseContext) -> ToolResult:
    async def hop_allowed(target: str) -> HopVerdict:
        hop = WebFetchInput(url=target, prompt=value.prompt)
        facts = CallFacts(NAME, True, target)
        decision = decide(facts, await check_fetch(hop, ctx), ctx.permission_context)
        return "follow" if decision.behavior == "allow" else decision.behavior

    fetched: Page | Redirect | None = PAGES.get(value.url)
    if fetched is None:
        ctx.report(f"fetching {value.url}")
        try:
            fetched = await fetch_page(value.url, hop_allowed)
        except FetchError as exc:
            raise ToolError(str(exc)) from exc
        if isinstance(fetched, Page):
            PAGES.put(value.url, fetched)
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
