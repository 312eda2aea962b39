/**
 * A small, safe markdown renderer for streamed answers: the input is HTML-escaped first, so the
 * output only contains the tags made here. Fenced code (with a header holding its language and a copy
 * button; the webview highlights it), headings, nested lists, GitHub tables, quotes, paragraphs,
 * inline code, bold, italics and http(s) links.
 */

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Escape text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

function inline(escaped: string): string {
  // split out code spans first so their content is not formatted
  return escaped
    .split(/(`[^`]+`)/g)
    .map((part) => {
      if (part.length > 1 && part.startsWith("`") && part.endsWith("`")) {
        return `<code>${part.slice(1, -1)}</code>`;
      }
      return part
        .replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>")
        .replace(/(^|[^*])\*([^*\s][^*]*)\*/g, "$1<em>$2</em>")
        .replace(/\[([^\]]+)\]\((https?:\/\/[^\s)]+)\)/g, '<a href="$2">$1</a>');
    })
    .join("");
}

const LIST_ITEM = /^(\s*)([-*+]|\d+[.)])\s+(.*)$/;
const TABLE_SEPARATOR = /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/;

function codeBlock(lang: string, code: string[]): string {
  const safeLang = /^[\w+#.-]{1,30}$/.test(lang) ? lang : "";
  const attr = safeLang ? ` data-lang="${safeLang}"` : "";
  const head = `<div class="code-head"><span class="lang">${safeLang || "text"}</span><button type="button" class="copy-code" title="Copy">Copy</button></div>`;
  return `<div class="code">${head}<pre${attr}><code>${code.join("\n")}</code></pre></div>`;
}

function cells(row: string): string[] {
  return row.trim().replace(/^\|/, "").replace(/\|$/, "").split("|").map((c) => c.trim());
}

function table(header: string, separator: string, rows: string[]): string {
  const aligns = cells(separator).map((c) => (c.startsWith(":") && c.endsWith(":") ? "center" : c.endsWith(":") ? "right" : ""));
  const cell = (tag: string, text: string, i: number): string => `<${tag}${aligns[i] ? ` class="align-${aligns[i]}"` : ""}>${inline(text)}</${tag}>`;
  const head = `<tr>${cells(header).map((c, i) => cell("th", c, i)).join("")}</tr>`;
  const body = rows.map((r) => `<tr>${cells(r).map((c, i) => cell("td", c, i)).join("")}</tr>`).join("");
  return `<div class="table"><table><thead>${head}</thead><tbody>${body}</tbody></table></div>`;
}

interface ListNode {
  tag: "ul" | "ol";
  indent: number;
  items: { text: string; children: ListNode[] }[];
}

/** Lists nest by indentation: an item indented past its predecessor's marker starts a list inside it. */
function list(lines: string[]): string {
  const roots: ListNode[] = [];
  const stack: ListNode[] = [];
  for (const line of lines) {
    const m = LIST_ITEM.exec(line);
    if (!m) {
      const last = stack[stack.length - 1]?.items.at(-1);
      if (last) {
        last.text += ` ${line.trim()}`; // a continuation line
      }
      continue;
    }
    const indent = m[1].replace(/\t/g, "    ").length;
    const tag = /\d/.test(m[2]) ? "ol" : "ul";
    while (stack.length > 0 && indent < stack[stack.length - 1].indent) {
      stack.pop();
    }
    let top = stack[stack.length - 1];
    if (!top || indent > top.indent) {
      const node: ListNode = { tag, indent, items: [] };
      const parent = top?.items.at(-1);
      if (parent) {
        parent.children.push(node);
      } else {
        roots.push(node);
      }
      stack.push(node);
      top = node;
    } else if (top.tag !== tag && stack.length === 1) {
      const node: ListNode = { tag, indent, items: [] };
      roots.push(node);
      stack[0] = node;
      top = node;
    }
    top.items.push({ text: m[3], children: [] });
  }
  const render = (node: ListNode): string =>
    `<${node.tag}>${node.items.map((i) => `<li>${inline(i.text)}${i.children.map(render).join("")}</li>`).join("")}</${node.tag}>`;
  return roots.map(render).join("");
}

/** Render markdown to HTML; safe for `innerHTML` whatever the input. */
export function renderMarkdown(source: string): string {
  const lines = escapeHtml(source).split("\n");
  const html: string[] = [];
  let paragraph: string[] = [];
  const flushParagraph = (): void => {
    if (paragraph.length > 0) {
      html.push(`<p>${inline(paragraph.join("\n")).replace(/\n/g, "<br>")}</p>`);
      paragraph = [];
    }
  };
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i];
    const fence = /^\s*```(\S*)/.exec(line);
    if (fence) {
      flushParagraph();
      const code: string[] = [];
      i += 1;
      while (i < lines.length && !/^\s*```/.test(lines[i])) {
        code.push(lines[i]);
        i += 1;
      }
      html.push(codeBlock(fence[1], code));
      continue;
    }
    if (line.includes("|") && i + 1 < lines.length && TABLE_SEPARATOR.test(lines[i + 1]) && lines[i + 1].includes("-")) {
      flushParagraph();
      const rows: string[] = [];
      let j = i + 2;
      while (j < lines.length && lines[j].includes("|") && lines[j].trim() !== "") {
        rows.push(lines[j]);
        j += 1;
      }
      html.push(table(line, lines[i + 1], rows));
      i = j - 1;
      continue;
    }
    if (LIST_ITEM.test(line)) {
      flushParagraph();
      const items: string[] = [];
      let j = i;
      while (j < lines.length && (LIST_ITEM.test(lines[j]) || (/^\s{2,}\S/.test(lines[j]) && items.length > 0))) {
        items.push(lines[j]);
        j += 1;
      }
      html.push(list(items));
      i = j - 1;
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    const quote = /^&gt;\s?(.*)$/.exec(line);
    if (heading) {
      flushParagraph();
      const level = Math.min(heading[1].length + 2, 6); // keep headings small inside a side panel
      html.push(`<h${level}>${inline(heading[2])}</h${level}>`);
    } else if (quote) {
      flushParagraph();
      html.push(`<blockquote>${inline(quote[1])}</blockquote>`);
    } else if (line.trim() === "") {
      flushParagraph();
    } else {
      paragraph.push(line);
    }
  }
  flushParagraph();
  return html.join("");
}
