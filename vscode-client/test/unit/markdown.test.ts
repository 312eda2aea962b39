import assert from "node:assert/strict";
import { test } from "node:test";
import { escapeHtml, renderMarkdown } from "../../src/logic/markdown";

test("HTML in the input is escaped, never rendered", () => {
  const html = renderMarkdown("<script>alert(1)</script> <img src=x onerror=alert(1)> **<b>x</b>**");
  assert.ok(!html.includes("<script"));
  assert.ok(!html.includes("<img"));
  assert.ok(!html.includes("<b>"));
  assert.match(html, /&lt;script&gt;/);
});

test("code fences keep their content verbatim (escaped)", () => {
  const html = renderMarkdown("```ts\nconst a = 1 < 2 && **b**;\n```");
  assert.equal(html, '<div class="code"><div class="code-head"><span class="lang">ts</span><button type="button" class="copy-code" title="Copy">Copy</button></div>'
    + '<pre data-lang="ts"><code>const a = 1 &lt; 2 &amp;&amp; **b**;</code></pre></div>');
});

test("inline formatting, lists, headings and links", () => {
  const html = renderMarkdown("# Title\n\nSome **bold**, *it* and `code`.\n\n- one\n- two\n\n1. first\n\n[site](https://example.com) [bad](javascript:alert(1))");
  assert.match(html, /<h3>Title<\/h3>/);
  assert.match(html, /<strong>bold<\/strong>/);
  assert.match(html, /<em>it<\/em>/);
  assert.match(html, /<code>code<\/code>/);
  assert.match(html, /<ul><li>one<\/li><li>two<\/li><\/ul>/);
  assert.match(html, /<ol><li>first<\/li><\/ol>/);
  assert.match(html, /<a href="https:\/\/example.com">site<\/a>/);
  assert.ok(!html.includes('href="javascript'));
});

test("an unfinished fence while streaming still renders as code", () => {
  assert.match(renderMarkdown("text\n```py\nprint(1)"), /<pre data-lang="py"><code>print\(1\)<\/code><\/pre>/);
});

test("escapeHtml covers quotes for attributes", () => {
  assert.equal(escapeHtml(`"'<>&`), "&quot;&#39;&lt;&gt;&amp;");
});
