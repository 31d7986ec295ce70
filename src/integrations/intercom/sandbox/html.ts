import { escapeHtml } from '../../../lib/escape-html.ts';
/** Intercom keeps message bodies as HTML: plain text sent through the API comes back as paragraphs. */
export function textToHtml(text: string): string {
  if (/^\s*</.test(text)) return text;
  const escaped = escapeHtml(text);
  return `<p>${escaped.replace(/\r?\n/g, '<br>')}</p>`;
}

/** Webhook payloads of API 2.15 carry bodies as plain text: tags dropped, entities decoded. */
export function htmlToText(html: string): string {
  return html
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/(p|div|li|h[1-6])>\s*/gi, '\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (_entity, name: string) => DECODED[name] ?? '')
    .trim();
}

const DECODED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", nbsp: ' ' };
