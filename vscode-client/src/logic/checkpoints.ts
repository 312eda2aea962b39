/**
 * Checkpoints: undo a whole turn. Before a turn's first file-changing call (Edit, Write, MultiEdit) to
 * a file, the file's text is kept; when the turn ends, the files that really changed make a checkpoint,
 * and undoing it puts every one of them back as it was before the turn (a file the turn created is
 * deleted). Changes made by shell commands are not tracked: only what went through handrail's file tools.
 */

import { diffTexts } from "./lineDiff";

/** One file as it was before the turn (`before` null: it did not exist). */
export interface FileBefore {
  path: string;
  before: string | null;
}

/** A file the undo restores, with what undoing it does (the counts are of the undo: lines it adds and removes). */
export interface RestoredFile extends FileBefore {
  added: number;
  removed: number;
}

export interface Checkpoint {
  id: string;
  sessionId: string;
  /** The prompt of the turn, for the preview. */
  prompt: string;
  files: RestoredFile[];
}

/** What undoing a turn does to each file, against the file's text now (null: missing); unchanged files are left out. */
export function restoreFiles(files: readonly FileBefore[], readNow: (path: string) => string | null): RestoredFile[] {
  const out: RestoredFile[] = [];
  for (const file of files) {
    const now = readNow(file.path);
    if (now === file.before) {
      continue;
    }
    const diff = diffTexts(now ?? "", file.before ?? "");
    out.push({ ...file, added: diff.added, removed: diff.removed });
  }
  return out;
}

/** One line per file for the preview: "src/app.py: 3 lines back, 1 line removed", "notes.md: deleted (the turn created it)". */
export function restoreSummary(file: RestoredFile, shownPath: string): string {
  if (file.before === null) {
    return `${shownPath}: deleted (the turn created it)`;
  }
  return `${shownPath}: +${file.added} −${file.removed}`;
}

/** The turn's files, in the order the turn first touched them, each kept once (its state before the turn). */
export class TurnFiles {
  private readonly files = new Map<string, string | null>();

  /** @param prompt the turn's prompt, for the undo's preview */
  constructor(readonly prompt: string) {}

  /** Keep a file's text before the turn changes it; later calls to the same file keep the first. */
  keep(path: string, text: string | null): void {
    if (!this.files.has(path)) {
      this.files.set(path, text);
    }
  }

  list(): FileBefore[] {
    return [...this.files].map(([path, before]) => ({ path, before }));
  }
}

/** The note the model gets with the next prompt, so its picture of the files stays true after an undo. */
export function undoNote(checkpoint: Checkpoint, shownPath: (path: string) => string): string {
  const names = checkpoint.files.map((f) => shownPath(f.path)).join(", ");
  return `(Note: the user undid the file changes of an earlier turn, "${checkpoint.prompt.slice(0, 200)}": ${names} ${checkpoint.files.length === 1 ? "is" : "are"} back as ${checkpoint.files.length === 1 ? "it was" : "they were"} before that turn. Read ${checkpoint.files.length === 1 ? "it" : "them"} again before editing.)`;
}
