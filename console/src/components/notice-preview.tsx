import '../styles/support.css';
import { useState } from 'react';
import { noticeWords } from '../api/notices.ts';
import { formatTime } from './format.ts';

/**
 * A notice where it lands, drawn in CSS alone: a phone's notification card, and the Telegram bot's message
 * (the title on its own line, then the body, and the bot's "Open app" button). The words are the ones the
 * service will send.
 */
export function NoticePreview({ title, body }: { readonly title: string; readonly body: string }) {
  const words = noticeWords(title, body);
  const [now] = useState(() => new Date());
  const shownTitle = words.title === '' ? <em className="placeholder">The title</em> : words.title;
  const shownBody = words.body === '' ? <em className="placeholder">The message</em> : words.body;
  return (
    <section className="notice-preview" aria-labelledby="notice-preview-heading">
      <h2 id="notice-preview-heading">Preview</h2>
      <figure className="preview-frame">
        <figcaption>On a phone, as a notification</figcaption>
        <div className="phone-screen">
          <div className="push-card">
            <p className="push-head">
              <span className="app-icon" aria-hidden="true" />
              <span className="app-name">Support</span>
              <span className="push-when">now</span>
            </p>
            <p className="push-title">{shownTitle}</p>
            <p className="push-body">{shownBody}</p>
          </div>
        </div>
      </figure>
      <figure className="preview-frame">
        <figcaption>In Telegram, from the bot</figcaption>
        <div className="chat-window">
          <div className="chat-bubble">
            <p className="chat-sender">Support bot</p>
            <p className="chat-text">
              {shownTitle}
              <br />
              {shownBody}
            </p>
            <p className="chat-when">{formatTime(now)}</p>
          </div>
          <p className="chat-button">Open app</p>
        </div>
      </figure>
      <p className="hint">
        Phones shorten long messages until the notification is opened. The Telegram button shows when the bot
        has a username.
      </p>
    </section>
  );
}
