/**
 * Routes. Every page but the sign-in page needs a session; /device keeps its path (RFC 8628's
 * verification_uri) and asks to sign in first like the rest.
 */
import { useState } from 'react';
import { Route, Routes } from 'react-router';
import { Layout } from './components/layout';
import { ErrorState, Loading } from './components/states';
import { useSession } from './lib/session';
import { DashboardPage } from './pages/dashboard';
import { DevicePage } from './pages/device';
import { EndpointPage } from './pages/endpoint';
import { EndpointFormPage } from './pages/endpoint-form';
import { JobPage } from './pages/job';
import { JobsPage } from './pages/jobs';
import { NotFoundPage } from './pages/not-found';
import { AcceptInvitationPage } from './pages/accept-invitation';
import { AnalysisSessionPage } from './pages/analysis-session';
import { AuditPage } from './pages/audit';
import { MembersPage } from './pages/members';
import { RunPage } from './pages/run';
import { SettingsPage } from './pages/settings';
import { SignInPage } from './pages/sign-in';

export function App() {
  const session = useSession();
  // Signed out after being signed in (Sign out, an expired session): the sign-in page takes focus.
  const [wasSignedIn, setWasSignedIn] = useState(false);
  if (session.data && !wasSignedIn) setWasSignedIn(true);
  if (session.isPending) return <Loading what="Loading Kairos" />;
  if (session.error && session.data === undefined)
    return <ErrorState error={session.error} retry={() => void session.refetch()} />;
  if (!session.data) return <SignInPage focusHeading={wasSignedIn} />;
  return (
    <Routes>
      <Route element={<Layout session={session.data} />}>
        <Route index element={<DashboardPage />} />
        <Route path="jobs" element={<JobsPage />} />
        <Route path="jobs/:jobId" element={<JobPage />} />
        <Route path="jobs/:jobId/endpoints/new" element={<EndpointFormPage />} />
        <Route path="endpoints/:endpointId" element={<EndpointPage />} />
        <Route path="endpoints/:endpointId/edit" element={<EndpointFormPage />} />
        <Route path="runs/:runId" element={<RunPage />} />
        <Route path="analysis-sessions/:sessionId" element={<AnalysisSessionPage />} />
        <Route path="settings" element={<SettingsPage />} />
        <Route path="members" element={<MembersPage />} />
        <Route path="audit" element={<AuditPage />} />
        <Route path="invitations/accept" element={<AcceptInvitationPage />} />
        <Route path="device" element={<DevicePage />} />
        <Route path="*" element={<NotFoundPage />} />
      </Route>
    </Routes>
  );
}
