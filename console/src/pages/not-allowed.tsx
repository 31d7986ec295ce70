import { PageHeading } from '../components/page-heading.tsx';

/** A page the role cannot use, reached by its address: the server would refuse it anyway. */
export function NotAllowed({ what }: { readonly what: string }) {
  return (
    <>
      <PageHeading>Not available to your role</PageHeading>
      <p>Your role cannot {what}. An owner can change your role.</p>
    </>
  );
}
