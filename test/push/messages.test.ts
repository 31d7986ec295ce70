import { describe, expect, it } from 'vitest';
import { messengerMessage, miniAppLink, mobileMessage, wordsOf } from '../../src/push/messages.ts';

const hidden = { showPreview: false };
const shown = { showPreview: true };
const link = { ...hidden, botUsername: 'HelpDeskBot', linkBase: 'https://t.me' };

describe('the words and payloads of a push', () => {
  it('a chat push carries the conversation to open and no text of the message', () => {
    const message = mobileMessage(
      { kind: 'chat', conversationId: 'c1', preview: 'secret words' },
      'tok',
      hidden,
    );
    expect(message).toEqual({
      token: 'tok',
      notification: { title: 'New reply from support', body: 'Open the chat to read it.' },
      data: { type: 'chat', conversationId: 'c1' },
    });
  });

  it('a resolved ticket asks for the CSAT prompt, as the string "true"', () => {
    const message = mobileMessage({ kind: 'ticket', ticketId: 't1', csat: true }, 'tok', hidden);
    expect(message.data).toEqual({ type: 'ticket', ticketId: 't1', csat: 'true' });
    expect(mobileMessage({ kind: 'ticket', ticketId: 't1', csat: false }, 'tok', hidden).data).toEqual({
      type: 'ticket',
      ticketId: 't1',
    });
  });

  it('posts and notices are system pushes naming what they are', () => {
    expect(mobileMessage({ kind: 'post', postId: 'p', channelId: 'ch' }, 'tok', hidden).data).toEqual({
      type: 'system',
      postId: 'p',
      channelId: 'ch',
    });
    const notice = mobileMessage(
      { kind: 'notice', noticeId: 'n', title: 'Maintenance', body: 'Tonight.' },
      'tok',
      hidden,
    );
    expect(notice.notification).toEqual({ title: 'Maintenance', body: 'Tonight.' });
    expect(notice.data).toEqual({ type: 'system', noticeId: 'n' });
  });

  it('quotes the start of the text only with previews on, on one line and cut short', () => {
    const long = `first line\n${'x'.repeat(500)}`;
    expect(wordsOf({ kind: 'chat', conversationId: 'c', preview: long }, hidden).body).toBe(
      'Open the chat to read it.',
    );
    const body = wordsOf({ kind: 'chat', conversationId: 'c', preview: long }, shown).body;
    expect(body.startsWith('first line x')).toBe(true);
    expect(Array.from(new Intl.Segmenter().segment(body))).toHaveLength(200);
    expect(body.endsWith('…')).toBe(true);
  });

  it('stays inside FCM’s 4096 bytes with the longest notice', () => {
    const message = mobileMessage(
      { kind: 'notice', noticeId: 'n'.repeat(36), title: '😀'.repeat(500), body: '😀'.repeat(5000) },
      't'.repeat(200),
      hidden,
    );
    expect(Buffer.byteLength(JSON.stringify(message))).toBeLessThan(4096);
  });
});

describe('the messenger link', () => {
  it('opens the chat or ticket through the mini-app start parameter', () => {
    expect(miniAppLink({ kind: 'chat', conversationId: '123' }, link)).toBe(
      'https://t.me/HelpDeskBot/app?startapp=chat_123',
    );
    expect(
      miniAppLink({ kind: 'ticket', ticketId: '9', csat: false }, { ...link, linkBase: 'https://t.me/' }),
    ).toBe('https://t.me/HelpDeskBot/app?startapp=ticket_9');
  });

  it('opens the app on its default screen when the id cannot be a start parameter, or for a post', () => {
    expect(miniAppLink({ kind: 'chat', conversationId: 'a b' }, link)).toBe('https://t.me/HelpDeskBot/app');
    expect(miniAppLink({ kind: 'post', postId: 'p', channelId: 'c' }, link)).toBe(
      'https://t.me/HelpDeskBot/app',
    );
  });

  it('has no button without a bot username', () => {
    const message = messengerMessage({ kind: 'chat', conversationId: '1' }, '42', {
      ...link,
      botUsername: undefined,
    });
    expect(message).toEqual({ chatId: '42', text: 'New reply from support\nOpen the chat to read it.' });
  });

  it('has one button with one when the bot has a name', () => {
    expect(messengerMessage({ kind: 'chat', conversationId: '1' }, '42', link).button).toEqual({
      text: 'Open chat',
      url: 'https://t.me/HelpDeskBot/app?startapp=chat_1',
    });
  });
});
