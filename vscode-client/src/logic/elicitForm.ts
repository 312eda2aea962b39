/**
 * An MCP server's elicitation form (`handrail/elicit`) as a series of questions: the fields of the requested
 * schema (MCP's flat JSON Schema: strings, enums, numbers, integers, booleans, arrays of enum strings), each
 * asked with a pick or a typed answer checked against the schema before it is accepted. Escape anywhere
 * cancels the form; "Decline" declines it. The server checks the answer again.
 */

import type { ElicitParams, ElicitResult } from "./protocol";

export interface Choice {
  value: string;
  label: string;
}

export interface FormField {
  name: string;
  title: string;
  kind: "boolean" | "choice" | "choices" | "text" | "number" | "integer";
  required: boolean;
  description?: string;
  choices: Choice[];
  default?: unknown;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  pattern?: string;
  format?: string;
  minItems?: number;
  maxItems?: number;
}

type Spec = Record<string, unknown>;

const isSpec = (value: unknown): value is Spec => typeof value === "object" && value !== null && !Array.isArray(value);
const num = (value: unknown): number | undefined => (typeof value === "number" && Number.isFinite(value) ? value : undefined);

function choicesOf(spec: Spec): Choice[] {
  const titled = spec.oneOf ?? spec.anyOf;
  if (Array.isArray(titled)) {
    return titled.filter(isSpec).filter((c) => "const" in c).map((c) => ({ value: String(c.const), label: String(c.title ?? c.const) }));
  }
  if (!Array.isArray(spec.enum)) {
    return [];
  }
  const names = Array.isArray(spec.enumNames) && spec.enumNames.length === spec.enum.length ? spec.enumNames : spec.enum;
  return spec.enum.map((value, i) => ({ value: String(value), label: String(names[i]) }));
}

/** The form's fields in the order written, or why the schema is not one MCP allows. */
export function formFields(schema: unknown): FormField[] | string {
  if (!isSpec(schema) || (schema.type ?? "object") !== "object") {
    return "the requested schema is not an object";
  }
  const properties = schema.properties ?? {};
  if (!isSpec(properties)) {
    return "the requested schema's properties are not an object";
  }
  const required = Array.isArray(schema.required) ? schema.required : [];
  const fields: FormField[] = [];
  for (const [name, spec] of Object.entries(properties)) {
    if (!isSpec(spec)) {
      return `the property ${name} is not a schema`;
    }
    const base = {
      name, title: typeof spec.title === "string" && spec.title ? spec.title : name, required: required.includes(name),
      ...(typeof spec.description === "string" ? { description: spec.description } : {}),
      ...("default" in spec ? { default: spec.default } : {}),
    };
    const type = spec.type;
    if (type === "boolean") {
      fields.push({ ...base, kind: "boolean", choices: [] });
    } else if (type === "number" || type === "integer") {
      fields.push({ ...base, kind: type, choices: [], minimum: num(spec.minimum), maximum: num(spec.maximum) });
    } else if (type === "string") {
      const choices = choicesOf(spec);
      fields.push({
        ...base, kind: choices.length > 0 ? "choice" : "text", choices, minLength: num(spec.minLength), maxLength: num(spec.maxLength),
        ...(typeof spec.pattern === "string" ? { pattern: spec.pattern } : {}), ...(typeof spec.format === "string" ? { format: spec.format } : {}),
      });
    } else if (type === "array" && isSpec(spec.items) && choicesOf(spec.items).length > 0) {
      fields.push({ ...base, kind: "choices", choices: choicesOf(spec.items), minItems: num(spec.minItems), maxItems: num(spec.maxItems) });
    } else {
      return `the property ${name} has an unsupported type (${JSON.stringify(type)})`;
    }
  }
  return fields;
}

const FORMATS: Record<string, { test: (text: string) => boolean; what: string }> = {
  email: { test: (t) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(t), what: "an e-mail address" },
  uri: { test: (t) => /^[a-z][a-z0-9+.-]*:\S+$/i.test(t), what: "a URI (scheme:…)" },
  date: { test: (t) => /^\d{4}-\d{2}-\d{2}$/.test(t) && !Number.isNaN(Date.parse(t)), what: "a date (YYYY-MM-DD)" },
  "date-time": { test: (t) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(t) && !Number.isNaN(Date.parse(t)), what: "a date and time (YYYY-MM-DDThh:mm:ssZ)" },
};

/** A typed answer as the field's value, or what is wrong with it (empty text for an optional field: skipped). */
export function readTyped(field: FormField, text: string): { value: unknown } | { skip: true } | { error: string } {
  const trimmed = field.kind === "text" ? text : text.trim();
  if (trimmed === "") {
    return field.required ? { error: `${field.title} is required.` } : { skip: true };
  }
  if (field.kind === "number" || field.kind === "integer") {
    const value = Number(trimmed);
    if (!Number.isFinite(value) || (field.kind === "integer" && !Number.isInteger(value))) {
      return { error: `Enter ${field.kind === "integer" ? "a whole number" : "a number"}.` };
    }
    if (field.minimum !== undefined && value < field.minimum) {
      return { error: `At least ${field.minimum}.` };
    }
    if (field.maximum !== undefined && value > field.maximum) {
      return { error: `At most ${field.maximum}.` };
    }
    return { value };
  }
  if (field.minLength !== undefined && trimmed.length < field.minLength) {
    return { error: `At least ${field.minLength} characters.` };
  }
  if (field.maxLength !== undefined && trimmed.length > field.maxLength) {
    return { error: `At most ${field.maxLength} characters.` };
  }
  if (field.pattern !== undefined) {
    let pattern: RegExp | null = null;
    try {
      pattern = new RegExp(field.pattern, "u");
    } catch {
      pattern = null; // a pattern this engine cannot read: the server checks it
    }
    if (pattern && !pattern.test(trimmed)) {
      return { error: `Must match ${field.pattern}.` };
    }
  }
  const format = field.format ? FORMATS[field.format] : undefined;
  if (format && !format.test(trimmed)) {
    return { error: `Enter ${format.what}.` };
  }
  return { value: trimmed };
}

/** What a multiple choice's picks lack (null when fine). */
export function choicesProblem(field: FormField, picked: readonly string[]): string | null {
  if (picked.length === 0 && !field.required) {
    return null; // an optional field left out: its limits apply to an answer only
  }
  const low = Math.max(field.minItems ?? 0, field.required ? 1 : 0);
  if (picked.length < low) {
    return `Pick at least ${low}.`;
  }
  if (field.maxItems !== undefined && picked.length > field.maxItems) {
    return `Pick at most ${field.maxItems}.`;
  }
  return null;
}

/** How the form is asked: the editor's pickers (undefined: the user pressed Escape). */
export interface FormAsker {
  /** Answer the form, decline it, or undefined. */
  start(params: ElicitParams): Promise<"answer" | "decline" | undefined>;
  /** One of `items` (labels); `skip` is offered for an optional field. */
  pick(field: FormField, items: Choice[], position: string): Promise<string | undefined>;
  /** Several of `items`; `problem` re-asks until the picks fit. */
  pickMany(field: FormField, items: Choice[], position: string, problem: (picked: string[]) => string | null): Promise<string[] | undefined>;
  /** Typed text; `check` says what is wrong with it while typing (null: fine). */
  type(field: FormField, position: string, check: (text: string) => string | null): Promise<string | undefined>;
  /** The form cannot be shown (a schema MCP does not allow): tell the user. */
  cannotShow(params: ElicitParams, why: string): void;
}

const SKIP = "\u0000skip";

/** Ask every field of the form; the answer for `handrail/elicit`. */
export async function fillForm(params: ElicitParams, asker: FormAsker): Promise<ElicitResult> {
  const fields = formFields(params.requestedSchema);
  if (typeof fields === "string") {
    asker.cannotShow(params, fields);
    return { action: "decline" };
  }
  const start = await asker.start(params);
  if (start !== "answer") {
    return { action: start === "decline" ? "decline" : "cancel" };
  }
  const content: Record<string, unknown> = {};
  for (const [index, field] of fields.entries()) {
    const position = `${index + 1}/${fields.length}`;
    const skip: Choice[] = field.required ? [] : [{ value: SKIP, label: "(leave empty)" }];
    if (field.kind === "boolean") {
      const picked = await asker.pick(field, [{ value: "true", label: "Yes" }, { value: "false", label: "No" }, ...skip], position);
      if (picked === undefined) {
        return { action: "cancel" };
      }
      if (picked !== SKIP) {
        content[field.name] = picked === "true";
      }
    } else if (field.kind === "choice") {
      const picked = await asker.pick(field, [...field.choices, ...skip], position);
      if (picked === undefined) {
        return { action: "cancel" };
      }
      if (picked !== SKIP) {
        content[field.name] = picked;
      }
    } else if (field.kind === "choices") {
      const picked = await asker.pickMany(field, field.choices, position, (p) => choicesProblem(field, p));
      if (picked === undefined) {
        return { action: "cancel" };
      }
      if (picked.length > 0 || field.required) {
        content[field.name] = picked;
      }
    } else {
      const check = (text: string): string | null => {
        const read = readTyped(field, text);
        return "error" in read ? read.error : null;
      };
      const typed = await asker.type(field, position, check);
      if (typed === undefined) {
        return { action: "cancel" };
      }
      const read = readTyped(field, typed);
      if ("error" in read) {
        return { action: "cancel" }; // the input box does not let it through; a scripted asker might
      }
      if ("value" in read) {
        content[field.name] = read.value;
      }
    }
  }
  return { action: "accept", content };
}
