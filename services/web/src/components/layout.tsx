/**
 * The signed-in frame: a skip link, the navigation (wraps on narrow screens; Audit for admins and
 * owners), the account switcher (several accounts), the page, sign-out.
 * Focus moves to each new page's heading (page-title.tsx).
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { NavLink, Outlet } from 'react-router';
import { api, unwrap } from '../api/client';
import { roleAtLeast, type MemberRole } from '../lib/roles';
import { SESSION_KEY, type CurrentSession } from '../lib/session';
import { AccountSwitcher } from './account-switcher';
import { ActionButton } from './action-button';
import { NavigationFocus } from './page-title';

const LINKS = [
  { to: '/', label: 'Dashboard', end: true, least: 'viewer' },
  { to: '/jobs', label: 'Jobs', end: false, least: 'viewer' },
  { to: '/members', label: 'Members', end: false, least: 'viewer' },
  { to: '/audit', label: 'Audit', end: false, least: 'admin' },
  { to: '/settings', label: 'Settings', end: false, least: 'viewer' },
] as const satisfies readonly { to: string; label: string; end: boolean; least: MemberRole }[];

export function Layout({ session }: { session: CurrentSession }) {
  const queryClient = useQueryClient();
  const signOut = useMutation({
    mutationFn: () => unwrap(api.POST('/api/auth/signout')),
    onSettled: () => {
      // Signed out (or the session was already gone): show the sign-in page at once and drop
      // everything cached for this account.
      queryClient.setQueryData(SESSION_KEY, null);
      queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== SESSION_KEY[0] });
    },
  });
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <NavLink to="/" className="brand">
          Kairos
        </NavLink>
        <nav aria-label="Main">
          {LINKS.filter((link) => roleAtLeast(session.memberRole, link.least)).map((link) => (
            <NavLink key={link.to} to={link.to} end={link.end}>
              {link.label}
            </NavLink>
          ))}
        </nav>
        <div className="account">
          <AccountSwitcher session={session} />
          <span className="muted" title={session.user.email}>
            {session.user.name ?? session.user.email}
          </span>
          <ActionButton className="link-button" onClick={() => signOut.mutate()} busy={signOut.isPending}>
            Sign out
          </ActionButton>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <NavigationFocus>
          <Outlet />
        </NavigationFocus>
      </main>
    </>
  );
}
