/**
 * Tool cards and the permission question inside them. A question is answered only by its buttons or
 * keys (1 allow once, 2 always allow, 3 deny, 4 deny with feedback); nothing closes it by accident.
 */

import { decisionLabel, type ToolCard, type ToolStatus } from "../logic/chatModel";
import { diffStat, type LineDiff } from "../logic/lineDiff";
import { renderMarkdown } from "../logic/markdown";
import { DESTINATIONS, type CardAnswer, type PromptView } from "../logic/permissionCard";
import { button, el, highlightIn, linkPathsIn, setLinkedText } from "./dom";

export interface CardActions {
  answer(toolUseId: string, answer: CardAnswer): void;
  openDiff(toolUseId: string): void;
}

const STATUS_LABELS: Record<ToolStatus, string> = {
  running: "running…", waiting: "needs you", done: "done", error: "error", denied: "denied", stopped: "stopped",
};

/** Each card's full state (patches merge into it), so a section can be redrawn from it. */
const cards = new Map<string, ToolCard>();

export function forgetCards(): void {
  cards.clear();
}

function section(node: HTMLElement, className: string, tag: "div" | "pre" | "details" = "div"): HTMLElement {
  let found = node.querySelector<HTMLElement>(`:scope > .${className}`);
  if (!found) {
    found = el(tag, className);
    node.insertBefore(found, node.querySelector(":scope > .children"));
  }
  return found;
}

function diffLines(diff: LineDiff): HTMLElement {
  const box = el("div", "diff-lines");
  for (const line of diff.lines) {
    const sign = line.kind === "add" ? "+" : line.kind === "remove" ? "−" : line.kind === "gap" ? "⋯" : " ";
    const row = el("div", `diff-line ${line.kind}`);
    row.append(el("span", "sign", sign), el("span", "text", line.kind === "gap" ? ` ${line.text}` : line.text));
    box.append(row);
  }
  const shown = diff.lines.filter((l) => l.kind === "add" || l.kind === "remove").length;
  if (shown < diff.added + diff.removed) {
    box.append(el("div", "diff-line gap", `… ${diff.added + diff.removed - shown} more changed lines`));
  }
  return box;
}

function stat(diff: LineDiff): HTMLElement {
  const box = el("span", "stat");
  box.append(el("span", "added", `+${diff.added}`), el("span", "removed", ` −${diff.removed}`));
  box.title = `${diffStat(diff)} lines`;
  return box;
}

/** The question block of a card: what runs, exactly; why it asks; what "always" adds; the answers. */
function askNode(view: PromptView, actions: CardActions): HTMLElement {
  const box = el("div", "ask");
  box.tabIndex = -1;
  box.setAttribute("role", "group");
  box.setAttribute("aria-label", `Permission question: ${view.question}`);
  const question = el("div", "question", view.question);
  if (view.agent) {
    question.append(el("span", "agent", ` (sub-agent: ${view.agent})`));
  }
  box.append(question);
  if (view.command !== undefined) {
    const command = el("pre", "command");
    command.textContent = `$ ${view.command}`;
    box.append(command);
    if (view.description) {
      box.append(el("div", "description", `The model describes it as: ${view.description}`));
    }
  }
  if (view.diff) {
    const head = el("div", "diff-head");
    const file = el("span", "file");
    setLinkedText(file, view.file ?? "");
    head.append(file, stat(view.diff));
    if (view.canOpenDiff) {
      head.append(button("Open diff", "secondary small open-diff", () => actions.openDiff(view.toolUseId), "Open the proposed change in the diff editor"));
    }
    box.append(head, diffLines(view.diff));
  } else if (view.file !== undefined && view.canOpenDiff) {
    box.append(button("Open diff", "secondary small open-diff", () => actions.openDiff(view.toolUseId)));
  }
  if (view.plan !== undefined) {
    const plan = el("div", "plan markdown");
    plan.innerHTML = renderMarkdown(view.plan); // safe: renderMarkdown escapes all input
    highlightIn(plan);
    linkPathsIn(plan);
    box.append(plan, button("Open plan beside", "secondary small open-diff", () => actions.openDiff(view.toolUseId)));
  }
  if (view.details) {
    box.append(el("pre", "details", view.details));
  }
  box.append(el("div", "reason", `Why it asks: ${view.reason}`));

  const main = el("div", "actions");
  const where = el("div", "actions where");
  where.hidden = true;
  const feedback = el("div", "feedback");
  feedback.hidden = true;
  const showOnly = (shown: HTMLElement): void => {
    for (const part of [main, where, feedback]) {
      part.hidden = part !== shown;
    }
  };
  const text = el("textarea");
  text.rows = 2;
  text.placeholder = view.kind === "plan" ? "What should change in the plan?" : "Tell the agent why, or what to do instead";
  const send = (): void => actions.answer(view.toolUseId, { decision: "deny", feedback: text.value });
  text.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      send();
    } else if (e.key === "Escape") {
      e.preventDefault();
      e.stopPropagation();
      showOnly(main);
      box.focus();
    }
  });
  feedback.append(text, button(view.kind === "plan" ? "Keep planning" : "Deny and send", "deny", send), button("Back", "secondary", () => showOnly(main)));

  const allow = (): void => actions.answer(view.toolUseId, { decision: "allow" });
  const deny = (): void => actions.answer(view.toolUseId, { decision: "deny" });
  const withFeedback = (): void => {
    showOnly(feedback);
    text.focus();
  };
  if (view.kind === "plan") {
    main.append(
      button("Approve plan", "allow", allow, "1"),
      button("Keep planning", "secondary deny", deny, "3"),
      button("Keep planning, with feedback…", "secondary feedback-button", withFeedback, "4"),
    );
    box.dataset.keys = "1 3 4";
  } else {
    const always = (): void => {
      showOnly(where);
      where.querySelector<HTMLButtonElement>("button")?.focus();
    };
    // no rules: none is safe to offer (a flagged command), so there is no "always" answer
    main.append(
      button("Allow once", "allow", allow, "1"),
      ...(view.rules.length > 0 ? [button("Always allow…", "secondary always", always, "2")] : []),
      button("Deny", "secondary deny", deny, "3"),
      button("Deny with feedback…", "secondary feedback-button", withFeedback, "4"),
    );
    where.append(el("span", "label", "Remember where:"));
    for (const d of DESTINATIONS) {
      where.append(button(d.label, "secondary destination", () => actions.answer(view.toolUseId, { decision: "allowAlways", destination: d.destination }), d.detail));
    }
    where.append(button("Back", "secondary", () => showOnly(main)));
    if (view.rules.length > 0) {
      const rules = el("div", "rules");
      rules.append(el("span", undefined, `"Always allow" adds ${view.rules.length === 1 ? "this rule" : `these ${view.rules.length} rules`}: `));
      view.rules.forEach((rule, i) => rules.append(...(i > 0 ? [document.createTextNode(", ")] : []), el("code", undefined, rule)));
      box.append(rules);
    }
    box.dataset.keys = view.rules.length > 0 ? "1 2 3 4" : "1 3 4";
  }
  box.append(main, where, feedback, el("div", "hint", view.kind === "plan"
    ? "Keys: 1 approve · 3 keep planning · 4 with feedback · Esc stops the turn"
    : `Keys: 1 allow once · ${view.rules.length > 0 ? "2 always · " : ""}3 deny · 4 deny with feedback · Esc stops the turn`));
  box.addEventListener("keydown", (e) => {
    if (e.target instanceof HTMLTextAreaElement || e.altKey || e.ctrlKey || e.metaKey) {
      return;
    }
    const handlers: Record<string, (() => void) | undefined> = view.kind === "plan"
      ? { "1": allow, "3": deny, "4": withFeedback }
      : { "1": allow, "2": main.hidden ? undefined : () => main.querySelector<HTMLButtonElement>(".always")?.click(), "3": deny, "4": withFeedback };
    const run = handlers[e.key];
    if (run && !main.hidden) {
      e.preventDefault();
      e.stopPropagation();
      run();
    }
  });
  return box;
}

/** Draw the card's sections that `patch` touches, from its merged state. */
export function patchTool(node: HTMLElement, patch: Partial<ToolCard>, actions: CardActions): void {
  const id = node.dataset.id ?? "";
  const base: ToolCard = cards.get(id) ?? { id, name: "tool", summary: "", status: "running", progress: [] };
  const card: ToolCard = { ...base, ...patch };
  cards.set(id, card);
  const head = node.querySelector<HTMLElement>(":scope > .head")!;
  node.hidden = card.hidden === true;
  if (patch.name !== undefined) {
    head.querySelector(".name")!.textContent = card.name;
  }
  if (patch.summary !== undefined || patch.command !== undefined) {
    const summary = head.querySelector<HTMLElement>(".summary")!;
    const text = card.command !== undefined ? `$ ${card.command.split("\n")[0]}${card.command.includes("\n") ? " …" : ""}` : card.summary;
    setLinkedText(summary, text);
    summary.title = card.command !== undefined ? `$ ${card.command}` : card.summary;
  }
  if (patch.command !== undefined || patch.description !== undefined || patch.prompt !== undefined) {
    const commandBox = section(node, "command", "pre");
    commandBox.hidden = card.command === undefined || Boolean(card.prompt) || !card.command.includes("\n");
    commandBox.textContent = card.command !== undefined ? `$ ${card.command}` : "";
    const description = section(node, "description");
    description.hidden = card.description === undefined || Boolean(card.prompt);
    description.textContent = card.description ? `The model describes it as: ${card.description}` : "";
  }
  if (patch.status !== undefined) {
    node.classList.remove("running", "waiting", "done", "error", "denied", "stopped");
    node.classList.add(card.status);
    node.dataset.status = card.status;
    head.querySelector(".status")!.textContent = STATUS_LABELS[card.status];
  }
  if (patch.fact !== undefined || patch.diff !== undefined) {
    const fact = head.querySelector<HTMLElement>(".fact")!;
    fact.replaceChildren(...(card.diff && !card.prompt ? [stat(card.diff)] : card.fact ? [document.createTextNode(card.fact)] : []));
  }
  if (patch.permission !== undefined) {
    node.dataset.permission = card.permission;
    section(node, "permission").textContent = card.permission === "pending" ? "" : `Permission: ${decisionLabel(card.permission)}`;
  }
  if (patch.prompt !== undefined) {
    node.querySelector(":scope > .ask")?.remove();
    if (card.prompt) {
      node.insertBefore(askNode(card.prompt, actions), node.querySelector(":scope > .progress") ?? node.querySelector(":scope > .children"));
    }
  }
  if (patch.progress !== undefined) {
    const progress = section(node, "progress");
    setLinkedText(progress, card.progress.slice(-5).join("\n"));
    progress.hidden = card.progress.length === 0 || card.status !== "running";
  } else if (patch.status !== undefined && card.status !== "running") {
    const progress = node.querySelector<HTMLElement>(":scope > .progress");
    if (progress) {
      progress.hidden = true;
    }
  }
  if ((patch.diff !== undefined || patch.prompt !== undefined) && card.diff && !card.prompt) {
    const details = section(node, "diff", "details") as HTMLDetailsElement;
    details.replaceChildren(el("summary", undefined, "Diff"), diffLines(card.diff));
    details.open = card.diff.added + card.diff.removed <= 12;
  }
  if (patch.result !== undefined) {
    let details = node.querySelector<HTMLDetailsElement>(":scope > details.result");
    if (card.result === null || card.result === undefined || card.result === "") {
      details?.remove();
    } else {
      if (!details) {
        details = el("details", "result");
        details.append(el("summary", undefined, card.status === "error" ? "Error" : "Output"), el("pre"));
        node.insertBefore(details, node.querySelector(":scope > .children"));
      }
      setLinkedText(details.querySelector("pre")!, card.result);
      details.querySelector("summary")!.textContent = card.status === "error" ? "Error" : card.status === "denied" ? "What the agent was told" : "Output";
    }
  }
}

export function toolNode(card: ToolCard, actions: CardActions): HTMLElement {
  const node = el("div", "entry tool");
  node.dataset.id = card.id;
  const head = el("div", "head");
  head.append(el("span", "name"), el("span", "summary"), el("span", "fact"), el("span", "badge status"));
  node.append(head, el("div", "children"));
  cards.delete(card.id);
  patchTool(node, card, actions);
  return node;
}
