import { Link } from 'react-router';
import { PageHeading } from '../components/page-heading.tsx';

export function NotFoundPage() {
  return (
    <>
      <PageHeading>Page not found</PageHeading>
      <p>
        No page of the console has this address. <Link to="/channels">Go to the channels</Link>.
      </p>
    </>
  );
}
