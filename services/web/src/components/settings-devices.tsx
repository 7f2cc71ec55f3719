/**
 * Settings > Connected devices: the live access tokens issued by the device flow (kairos CLI,
 * MCP server), each revocable. Revoked and expired tokens are not listed by the api.
 */
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, unwrap, type Schemas } from '../api/client';
import { CredentialTable } from './settings-credentials';
import { Empty, QueryView } from './states';
import { RevokeButton } from './settings-revoke';
import { focusSection } from './settings-section';

type Device = Schemas['ConnectedDevice'];
const DEVICES = ['devices'] as const;

export function DevicesSettings() {
  const devices = useQuery({ queryKey: DEVICES, queryFn: () => unwrap(api.GET('/api/devices')) });
  return (
    <QueryView query={devices} what="Loading connected devices">
      {(list) => (list.length === 0 ? <NoDevices /> : <DeviceTable devices={list} />)}
    </QueryView>
  );
}

function NoDevices() {
  return (
    <Empty title="No connected devices.">
      <p>
        Tools such as the kairos CLI and the MCP server sign in with the device flow: they show a code, you open{' '}
        <Link to="/device">the device page</Link>, check the code and approve it. Each approved device appears here
        until it is revoked or its access expires (after 90 days).
      </p>
    </Empty>
  );
}

function DeviceTable({ devices }: { devices: Device[] }) {
  return (
    <CredentialTable
      caption="Connected devices"
      items={devices}
      createdLabel="Connected"
      moreDates={[{ label: 'Expires', iso: (device) => device.expiresAt }]}
      action={(device) => (
        <RevokeButton
          question={`Revoke “${device.name}”? Its access token stops working at once; the device must sign in again.`}
          revoke={() => unwrap(api.DELETE('/api/devices/{tokenId}', { params: { path: { tokenId: device.id } } }))}
          invalidates={DEVICES}
          itemName={device.name}
          afterRevoke={() => focusSection('connected-devices')}
        />
      )}
    />
  );
}
