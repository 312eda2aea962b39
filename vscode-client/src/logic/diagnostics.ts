/** Diagnostics forwarding: the editor's diagnostics as `handrail/diagnostics` params. */

import type { DiagnosticsParams, LspDiagnostic } from "./protocol";

/** The shape of a VS Code diagnostic this module reads (so it needs no `vscode` import). */
export interface EditorDiagnostic {
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
  message: string;
  severity: number; // VS Code: Error 0, Warning 1, Information 2, Hint 3
  source?: string;
  code?: string | number | { value: string | number };
}

/** Convert one diagnostic (LSP severities are VS Code's plus one). */
export function toLspDiagnostic(d: EditorDiagnostic): LspDiagnostic {
  const out: LspDiagnostic = {
    range: {
      start: { line: d.range.start.line, character: d.range.start.character },
      end: { line: d.range.end.line, character: d.range.end.character },
    },
    severity: d.severity + 1,
    message: d.message,
  };
  if (d.source) {
    out.source = d.source;
  }
  const code = typeof d.code === "object" ? d.code.value : d.code;
  if (code !== undefined) {
    out.code = code;
  }
  return out;
}

/** The notification params for one document's full current diagnostics. */
export function diagnosticsParams(uri: string, version: number | null, diagnostics: readonly EditorDiagnostic[]): DiagnosticsParams {
  return { uri, version, diagnostics: diagnostics.map(toLspDiagnostic) };
}

/** Only files are forwarded (not output panes, git views, settings…). */
export function shouldForward(scheme: string): boolean {
  return scheme === "file" || scheme === "untitled";
}
