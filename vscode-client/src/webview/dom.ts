/** DOM helpers of the chat webview: elements from text only (model text never becomes markup), path links, highlighting. */

import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import c from "highlight.js/lib/languages/c";
import cpp from "highlight.js/lib/languages/cpp";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import go from "highlight.js/lib/languages/go";
import ini from "highlight.js/lib/languages/ini";
import java from "highlight.js/lib/languages/java";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import markdown from "highlight.js/lib/languages/markdown";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";
import { linkPaths, looksLikeRelativePath } from "../logic/paths";

for (const [name, language] of Object.entries({ bash, c, cpp, css, diff, go, ini, java, javascript, json, markdown, python, rust, sql, typescript, xml, yaml })) {
  hljs.registerLanguage(name, language);
}
hljs.registerAliases(["sh", "shell", "zsh", "console"], { languageName: "bash" });
hljs.registerAliases(["toml"], { languageName: "ini" });
hljs.registerAliases(["html"], { languageName: "xml" });

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) {
    node.className = className;
  }
  if (text !== undefined) {
    node.textContent = text;
  }
  return node;
}

export function button(label: string, className: string, onClick: () => void, title?: string): HTMLButtonElement {
  const b = el("button", className, label);
  b.type = "button";
  if (title) {
    b.title = title;
  }
  b.addEventListener("click", onClick);
  return b;
}

/** The workspace folders, for relative, clickable paths. */
export const workspace = { roots: [] as string[] };

/** A path link: its text is the workspace-relative path; a click asks the extension to open it. */
function pathLink(text: string, path: string, line?: number): HTMLAnchorElement {
  const a = el("a", "path", text);
  a.href = "#";
  a.dataset.path = path;
  if (line !== undefined) {
    a.dataset.line = String(line);
  }
  a.title = line !== undefined ? `${path}:${line}` : path;
  return a;
}

/** `text` as nodes, with workspace paths as links. */
export function linkedText(text: string): Node[] {
  return linkPaths(text, workspace.roots).map((s) => ("path" in s ? pathLink(s.text, s.path, s.line) : document.createTextNode(s.text)));
}

/** Set an element's content to `text`, with workspace paths as links. */
export function setLinkedText(node: HTMLElement, text: string): void {
  node.replaceChildren(...linkedText(text));
}

/** In rendered markdown: absolute workspace paths in text, and inline code naming a relative file, become links. */
export function linkPathsIn(root: HTMLElement): void {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const texts: Text[] = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (!(n.parentElement?.closest("pre, a"))) {
      texts.push(n as Text);
    }
  }
  for (const text of texts) {
    const nodes = linkedText(text.data);
    if (nodes.length !== 1 || !(nodes[0] instanceof Text)) {
      text.replaceWith(...nodes);
    }
  }
  for (const code of root.querySelectorAll<HTMLElement>(":not(pre) > code")) {
    const value = code.textContent ?? "";
    if (!code.closest("a") && looksLikeRelativePath(value)) {
      const m = /^(.*?)(?::(\d+))?$/.exec(value)!;
      const link = pathLink("", m[1], m[2] ? Number(m[2]) : undefined);
      code.replaceWith(link);
      link.append(code);
    }
  }
}

/** Highlight the fenced code blocks under `root` (hljs escapes what it highlights). */
export function highlightIn(root: HTMLElement): void {
  for (const pre of root.querySelectorAll<HTMLElement>("pre[data-lang]")) {
    const lang = pre.dataset.lang ?? "";
    const code = pre.querySelector("code");
    if (code && hljs.getLanguage(lang)) {
      code.innerHTML = hljs.highlight(code.textContent ?? "", { language: lang, ignoreIllegals: true }).value;
      code.classList.add("hljs");
    }
  }
}
