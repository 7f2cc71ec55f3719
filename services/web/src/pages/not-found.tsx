import { Link } from 'react-router';
import { PageHeading, usePageTitle } from '../components/page-title';

export function NotFoundPage() {
  usePageTitle('Page not found');
  return (
    <section>
      <PageHeading>Page not found</PageHeading>
      <p>
        <Link to="/">Back to the dashboard</Link>
      </p>
    </section>
  );
}
