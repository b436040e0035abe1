// The one source of a study report's sections: each section is a heading and blocks (paragraphs, lists, tables)
// rendered to markdown for report.md and to HTML for report.html, so the two cannot drift; only charts are HTML's.
import { escapeHtml, tableHtml } from './html.js';

/** One block of a section's body. Text uses markdown's inline `code` and **bold**, which the HTML renderer converts. */
export type Block =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'list'; readonly items: readonly string[] }
  | {
      readonly kind: 'table';
      readonly header: readonly string[];
      readonly rows: readonly (readonly string[])[];
      /** Per column, `r` aligns right (numbers); default left. */
      readonly align?: readonly ('l' | 'r')[];
    }
  /** HTML only (a chart, rendered when the page is): report.md leaves it out. */
  | { readonly kind: 'chart'; readonly render: () => Promise<string> };

/** A section of a report: its id (the HTML anchor), its heading (the same in both files) and its body. */
export interface ReportSection {
  readonly id: string;
  readonly heading: string;
  readonly blocks: readonly Block[];
}

const cell = (c: string): string => (c === '' ? ' ' : ` ${c.replace(/\|/g, '\\|')} `);

/** The markdown lines of a block (no blank line around it). */
export function blockMarkdown(block: Block): string[] {
  switch (block.kind) {
    case 'text':
      return [block.text];
    case 'list':
      return block.items.map((item) => `- ${item}`);
    case 'table': {
      const align = block.header.map((_, i) => (block.align?.[i] === 'r' ? '---:' : '---'));
      return [`|${block.header.map(cell).join('|')}|`, `| ${align.join(' | ')} |`, ...block.rows.map((r) => `|${r.map(cell).join('|')}|`)];
    }
    case 'chart':
      return [];
  }
}

/** Markdown's inline `code` and **bold** as HTML, the rest escaped. */
export function inlineHtml(text: string): string {
  return escapeHtml(text)
    .replace(/`([^`]+)`/g, '<code>$1</code>')
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>');
}

/** The HTML of a block (a chart is rendered). */
export async function blockHtml(block: Block): Promise<string> {
  switch (block.kind) {
    case 'text':
      return `<p>${inlineHtml(block.text)}</p>`;
    case 'list':
      return `<ul>${block.items.map((item) => `<li>${inlineHtml(item)}</li>`).join('')}</ul>`;
    case 'table': {
      const numeric = (block.align ?? []).flatMap((a, i) => (a === 'r' ? [i] : []));
      return tableHtml(block.header.map((h) => h.replace(/`/g, '')), block.rows.map((r) => r.map((c) => ({ html: inlineHtml(c) }))), numeric);
    }
    case 'chart':
      return block.render();
  }
}

/** A section as markdown: `## heading`, then each block after a blank line. */
export function sectionMarkdown(section: ReportSection): string[] {
  const out = ['', `## ${section.heading}`];
  for (const block of section.blocks) {
    const lines = blockMarkdown(block);
    if (lines.length > 0) out.push('', ...lines);
  }
  return out;
}
