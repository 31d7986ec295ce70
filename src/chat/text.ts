import { escapeHtml } from '../lib/escape-html.ts';
/**
 * A user's plain text as the HTML body Intercom stores: escaped, so nothing the user types becomes markup
 * in the team's inbox (Intercom treats a body starting with a tag as HTML), with line breaks kept.
 */
export function userTextToHtml(text: string): string {
  const escaped = escapeHtml(text);
  return `<p>${escaped.replace(/\r?\n/g, '<br>')}</p>`;
}
