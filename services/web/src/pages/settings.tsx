/**
 * Settings: API keys, the signing key, shared secrets, AI features, notifications, host budgets, connected devices and usage, one section each
 * (each loads and fails on its own), with in-page links so /settings#ai-features opens on that part.
 */
import { useIsFetching } from '@tanstack/react-query';
import { useEffect, useRef, type ReactNode } from 'react';
import { useLocation } from 'react-router';
import { AiSettings } from '../components/settings-ai';
import { ApiKeysSettings } from '../components/settings-api-keys';
import { DevicesSettings } from '../components/settings-devices';
import { HostBudgetSettings } from '../components/settings-host-budgets';
import { NotificationSettings } from '../components/settings-notifications';
import { SETTINGS_SECTIONS, SettingsSection } from '../components/settings-section';
import { SecretsSettings } from '../components/settings-secrets';
import { SigningKeySettings } from '../components/settings-signing-key';
import { UsageSettings } from '../components/settings-usage';
import { PageHeading, usePageTitle } from '../components/page-title';

const CONTENT: Record<(typeof SETTINGS_SECTIONS)[number]['id'], ReactNode> = {
  'api-keys': <ApiKeysSettings />,
  'signing-key': <SigningKeySettings />,
  secrets: <SecretsSettings />,
  'ai-features': <AiSettings />,
  notifications: <NotificationSettings />,
  'host-budgets': <HostBudgetSettings />,
  'connected-devices': <DevicesSettings />,
  usage: <UsageSettings />,
};

export function SettingsPage() {
  useScrollToHash();
  usePageTitle('Settings');
  return (
    <>
      <div className="page-header">
        <PageHeading>Settings</PageHeading>
      </div>
      <nav aria-label="Settings sections" className="settings-nav">
        <ul>
          {SETTINGS_SECTIONS.map((section) => (
            <li key={section.id}>
              <a href={`#${section.id}`}>{section.title}</a>
            </li>
          ))}
        </ul>
      </nav>
      {SETTINGS_SECTIONS.map((section) => (
        <SettingsSection key={section.id} id={section.id} title={section.title}>
          {CONTENT[section.id]}
        </SettingsSection>
      ))}
    </>
  );
}

/**
 * Arriving with #section (a link from elsewhere): the browser tried to scroll while the sections were
 * still loading and short, so scroll once the first fetches have settled. In-page links scroll natively.
 */
function useScrollToHash() {
  const { hash } = useLocation();
  const fetching = useIsFetching();
  const sawFetching = useRef(false);
  const scrolledFor = useRef<string | null>(null);
  useEffect(() => {
    if (fetching > 0) sawFetching.current = true;
    if (fetching > 0 || !hash || !sawFetching.current || scrolledFor.current === hash) return;
    scrolledFor.current = hash;
    document.getElementById(decodeURIComponent(hash.slice(1)))?.scrollIntoView();
  }, [hash, fetching]);
}
