"""The root of every exception handrail raises, and the tree below it.

Each exception lives beside the code that raises it; all of them derive from `HandrailError`, so
`except HandrailError` tells handrail's own failures from bugs and from the libraries' errors. Those
that are also a `ValueError` (a value that does not parse or cannot be used) say so, and stay one,
because callers catch them as such (their children are ValueErrors too). The tree (a test keeps it true):

* HandrailError
  * HostError — permissions/hosts.py: not a host name or address a client could connect to (ValueError)
  * ConfigError — permissions/gitdir.py: a git configuration file git may read differently (ValueError)
  * ToolError — tools/errors.py: a tool call failed; the message is the model's `is_error` result
    * WriteConflictError — tools/filesystem.py: the file changed between the snapshot and the write
    * UnsharedBufferError — lsp/document_share.py: the editor may hold the file in a buffer handrail cannot
      see, so it was not written
  * BinaryFileError — tools/filesystem.py: the file is not text
  * FileTooLargeError — tools/filesystem.py: the file on disk is over the reader's limit; nothing was read
  * EditError — tools/text_ops.py: an edit that cannot be applied (ValueError)
    * StringNotFoundError — `old_string` does not occur in the text
    * AmbiguousEditError — `old_string` occurs more than once and `replace_all` was not asked for
    * EditStepError — one edit of a sequence failed; its `cause` is the EditError that says why
    * EditOverlapError — the lines an edit would change were changed since the model read them
  * ImageError — tools/images.py: data that is not an image Read can send
  * PdfError — tools/pdf.py: a PDF or page range that cannot be read
  * NotebookError — tools/notebooks.py: a notebook that cannot be read or edited as asked
  * FrontMatterError — tools/front_matter.py: malformed front matter, with its line (ValueError)
  * DefinitionFileError — tools/definition_files.py: a malformed agent or skill file (ValueError)
  * FetchError — tools/web_page.py: a web page that could not be fetched or read
    * HostRefused — a host that may not be connected to without the user's say
  * SmallModelError — tools/small_model.py: the small model could not answer
  * ClassifierAnswerError — tools/auto_mode.py: the auto-mode classifier's answer is not the JSON asked for
    (ValueError)
  * MissingVariableError — tools/mcp/config.py: `${VAR}` without a default names an unset variable (ValueError)
  * McpConnectionLostError — tools/mcp/model.py: an MCP server went away during a request
  * McpRequestError — tools/mcp/model.py: an MCP server answered a request with a protocol error
  * McpSignInRequiredError — tools/mcp/model.py: a remote MCP server wants a sign-in only the user can give
  * MentionError — tools/mcp/mentions.py: a mentioned MCP resource that cannot be attached (ValueError)
  * PromptUsageError — tools/mcp/prompts.py: an MCP prompt named or called wrongly (ValueError)
  * FormError — tools/mcp/elicitation.py: an elicitation schema MCP does not allow (ValueError)
  * SignInRefusedError — tools/mcp/loopback.py: the authorization server sent the browser back with an error
  * ModelError — agent/model_errors.py: the model could not be reached or answered with an error
  * StreamFault — agent/model_errors.py: the model's stream stalled or sent events that do not parse
  * RequestRefused — wire/errors.py: a request answered with an error instead of a result (its JSON-RPC `code`)
    * InvalidParams — the arguments are malformed or ask for what cannot be (an unknown or disabled mode)
    * InvalidRequest — the request cannot be carried out now (the session is still running a turn)
    * PromptFailed — agent/mcp_prompts.py: an MCP server could not render a prompt

Exceptions private to a module (a leading underscore) that never leave it are not part of the tree.
"""

from __future__ import annotations


class HandrailError(Exception):
    """Every exception handrail raises on purpose derives from this one."""
