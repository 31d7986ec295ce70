import type { Section } from '../sections.ts';
import { PageHeading } from '../components/page-heading.tsx';

/** A section the console does not have yet: the admin API already serves it (see /docs). */
export function NotYetPage({ section }: { readonly section: Section }) {
  return (
    <>
      <PageHeading>{section.label}</PageHeading>
      <p>
        This part of the console is not available yet. Until it is, the admin API serves it: see the{' '}
        <a href="/docs">API documentation</a>.
      </p>
    </>
  );
}
