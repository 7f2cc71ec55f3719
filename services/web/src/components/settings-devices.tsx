/**
 * Settings > Connected devices: the live access tokens issued by the device flow (kairos CLI,
 * MCP server), each revocable. Revoked and expired tokens are not listed by the api.
 */
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, unwrap, type Schemas } from '../api/client';
import { When } from './settings-section';
import { Empty, QueryView } from './states';
import { RevokeButton } from './settings-revoke';

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
    <div className="table-wrap">
      <table className="settings-table">
        <caption className="visually-hidden">Connected devices</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Prefix</th>
            <th scope="col">Connected</th>
            <th scope="col">Last used</th>
            <th scope="col">Expires</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {devices.map((device) => (
            <DeviceRow key={device.id} device={device} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function DeviceRow({ device }: { device: Device }) {
  return (
    <tr>
      <th scope="row">{device.name}</th>
      <td data-label="Prefix">
        <code>{device.prefix}…</code>
      </td>
      <td data-label="Connected">
        <When iso={device.createdAt} />
      </td>
      <td data-label="Last used">
        <When iso={device.lastUsedAt} empty="Never" />
      </td>
      <td data-label="Expires">
        <When iso={device.expiresAt} />
      </td>
      <td className="settings-table-actions">
        <RevokeButton
          question={`Revoke “${device.name}”? Its access token stops working at once; the device must sign in again.`}
          revoke={() => unwrap(api.DELETE('/api/devices/{tokenId}', { params: { path: { tokenId: device.id } } }))}
          invalidates={DEVICES}
        />
      </td>
    </tr>
  );
}
