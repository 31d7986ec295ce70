import '../styles/support.css';
import { type SubmitEvent, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { newIdempotencyKey } from '../api/keys.ts';
import { NOTICE_BODY_MAX, NOTICE_TITLE_MAX, type NoticeSending, useSendNotice } from '../api/notices.ts';
import { fieldErrorsOf } from '../api/problem.ts';
import { can } from '../api/session.ts';
import { FormProblem, TextArea, TextInput } from '../components/fields.tsx';
import { formatNumber } from '../components/format.ts';
import { useAdmin } from '../components/layout.tsx';
import { NoticePreview } from '../components/notice-preview.tsx';
import { PageHeading } from '../components/page-heading.tsx';
import { NotAllowed } from './not-allowed.tsx';

const FIELDS = ['title', 'body', 'userIds'] as const;

/** User ids as typed: one per line, or separated by commas or spaces. */
const idsOf = (text: string) => text.split(/[\s,]+/u).filter(Boolean);

export function NoticeNewPage() {
  const admin = useAdmin();
  if (!can(admin, 'notices.send')) return <NotAllowed what="send system notices" />;
  return <NoticeForm />;
}

/** A notice's words and audience, with a preview of what phones and Telegram will show. */
function NoticeForm() {
  const send = useSendNotice();
  const navigate = useNavigate();
  // One key for this form until the server confirms: a second click sends no second notice.
  const [key] = useState(newIdempotencyKey);
  const [title, setTitle] = useState('');
  const [body, setBody] = useState('');
  const [everyone, setEveryone] = useState(true);
  const [users, setUsers] = useState('');
  const errors = fieldErrorsOf(send.error, FIELDS);
  // The API counts as zod does: UTF-16 units of the trimmed text.
  const count = (text: string, max: number) => `${formatNumber(text.trim().length)} of ${formatNumber(max)}`;

  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    const notice: NoticeSending = { title, body, ...(everyone ? {} : { userIds: idsOf(users) }) };
    send.mutate(
      { body: notice, key },
      {
        onSuccess: () => {
          void navigate('/notices', { state: { sent: true } });
        },
      },
    );
  };
  return (
    <>
      <p className="breadcrumb">
        <Link to="/notices">Back to the notices</Link>
      </p>
      <PageHeading>New notice</PageHeading>
      <div className="notice-compose">
        <form onSubmit={submit} noValidate>
          <TextInput
            label="Title"
            hint={`Characters: ${count(title, NOTICE_TITLE_MAX)}.`}
            value={title}
            onChange={(event) => {
              setTitle(event.target.value);
            }}
            errors={errors.get('title')}
          />
          <TextArea
            label="Message"
            rows={5}
            hint={`Characters: ${count(body, NOTICE_BODY_MAX)}. Line breaks become spaces on phones and in Telegram.`}
            value={body}
            onChange={(event) => {
              setBody(event.target.value);
            }}
            errors={errors.get('body')}
          />
          <fieldset>
            <legend>Send to</legend>
            <div className="field checkbox radio">
              <input
                id="notice-everyone"
                type="radio"
                name="audience"
                checked={everyone}
                onChange={() => {
                  setEveryone(true);
                }}
              />
              <label htmlFor="notice-everyone">Every user with a device</label>
            </div>
            <div className="field checkbox radio">
              <input
                id="notice-chosen"
                type="radio"
                name="audience"
                checked={!everyone}
                onChange={() => {
                  setEveryone(false);
                }}
              />
              <label htmlFor="notice-chosen">Chosen users</label>
            </div>
            {everyone ? null : (
              <TextArea
                label="User ids"
                hint="One per line, or separated by commas."
                rows={4}
                value={users}
                onChange={(event) => {
                  setUsers(event.target.value);
                }}
                errors={errors.get('userIds')}
              />
            )}
          </fieldset>
          <p className="hint">Users who turned system notices off get nothing.</p>
          <FormProblem error={send.error} unplaced={errors.get('')} />
          <button type="submit" className="primary" disabled={send.isPending}>
            {send.isPending ? 'Sending…' : 'Send notice'}
          </button>
        </form>
        <NoticePreview title={title} body={body} />
      </div>
    </>
  );
}
