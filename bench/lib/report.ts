/** Plain-text and Markdown tables, number formatting, and replacing a marked block of a Markdown file. */
import fs from 'node:fs';

export const int = (n: number): string => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–');
export const fixed = (n: number, digits = 1): string => (Number.isFinite(n) ? n.toFixed(digits) : '–');
export const secs = (n: number): string => (Number.isFinite(n) ? (n < 10 ? n.toFixed(2) : n.toFixed(1)) : '–');

/** A Markdown table; `align` per column: 'l' or 'r'. */
export function markdownTable(head: string[], rows: string[][], align?: Array<'l' | 'r'>): string {
  const a = align ?? head.map((_, i) => (i === 0 ? 'l' : 'r'));
  const sep = a.map((x) => (x === 'r' ? '---:' : '---'));
  return [head, sep, ...rows].map((r) => `| ${r.join(' | ')} |`).join('\n');
}

/** A fixed-width table for the terminal. */
export function textTable(head: string[], rows: string[][], align?: Array<'l' | 'r'>): string {
  const a = align ?? head.map((_, i) => (i === 0 ? 'l' : 'r'));
  const width = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => r.map((c, i) => (a[i] === 'r' ? c.padStart(width[i]) : c.padEnd(width[i]))).join('  ');
  return [line(head), width.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/**
 * Replaces the text between `<!-- name:begin -->` and `<!-- name:end -->` in a Markdown file. A file without the
 * markers gets the block appended (under `heading` when given); a missing file is created from `skeleton`.
 */
export function replaceBlock(file: string, name: string, body: string, opts: { skeleton: string; heading?: string }): void {
  const begin = `<!-- ${name}:begin -->`;
  const end = `<!-- ${name}:end -->`;
  const block = `${begin}\n${body.trim()}\n${end}`;
  let text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : opts.skeleton;
  const i = text.indexOf(begin);
  const j = text.indexOf(end);
  if (i >= 0 && j > i) text = text.slice(0, i) + block + text.slice(j + end.length);
  else text = `${text.trimEnd()}\n\n${opts.heading ? `${opts.heading}\n\n` : ''}${block}\n`;
  fs.writeFileSync(file, text);
}
