/** ↑/↓ in the prompt box: earlier prompts, newest first, with the unsent draft kept while browsing. */

export class InputHistory {
  private position: number; // entries.length: the draft
  private draft = "";

  constructor(private readonly entries: string[] = [], private readonly max = 100) {
    this.entries = entries.slice(-max);
    this.position = this.entries.length;
  }

  /** Everything remembered, oldest first (for the webview's saved state). */
  get all(): string[] {
    return [...this.entries];
  }

  /** Remember a sent prompt (not twice in a row) and go back to an empty draft. */
  push(text: string): void {
    const trimmed = text.trim();
    if (trimmed && this.entries[this.entries.length - 1] !== trimmed) {
      this.entries.push(trimmed);
      if (this.entries.length > this.max) {
        this.entries.shift();
      }
    }
    this.position = this.entries.length;
    this.draft = "";
  }

  /** The prompt before the one shown (`current` is the box's text, kept as the draft); null at the oldest. */
  older(current: string): string | null {
    if (this.position === 0) {
      return null;
    }
    if (this.position === this.entries.length) {
      this.draft = current;
    }
    this.position -= 1;
    return this.entries[this.position];
  }

  /** The prompt after the one shown, or the draft again; null when already at the draft. */
  newer(): string | null {
    if (this.position >= this.entries.length) {
      return null;
    }
    this.position += 1;
    return this.position === this.entries.length ? this.draft : this.entries[this.position];
  }
}

/** Whether ↑ should browse history: the caret is on the box's first line (nothing selected). */
export function caretOnFirstLine(text: string, start: number, end: number): boolean {
  return start === end && !text.slice(0, start).includes("\n");
}

/** Whether ↓ should browse history: the caret is on the box's last line. */
export function caretOnLastLine(text: string, start: number, end: number): boolean {
  return start === end && !text.slice(end).includes("\n");
}
