/**
 * The account's configuration as a document: every job that is not archived with its endpoints,
 * and the notification channels. Keys are the stored ones, or derived from names where there are
 * none (keys.ts: the next plan adopts them). Sensitive header values are masked: the export holds
 * no secrets, and the mask keeps the stored value when the document is applied.
 */
import { NOTIFICATION_EVENTS } from '../schemas/notifications.js';
import { CONFIG_API_VERSION } from './document.js';
import { documentEndpoint } from './fields.js';
import { effectiveKeys } from './keys.js';
import type { ConfigState, StoredChannel } from './plan.js';

export function exportConfig(state: ConfigState): Record<string, unknown> {
  const jobKeys = effectiveKeys(state.jobs, 'job');
  const jobs = state.jobs.map((job, index) => {
    const endpointKeys = effectiveKeys(
      job.endpoints.map((endpoint) => endpoint.config),
      'endpoint',
    );
    const keyOfId = new Map(job.endpoints.map((endpoint, i) => [endpoint.id, endpointKeys[i]!]));
    return {
      key: jobKeys[index]!,
      name: job.name,
      ...(job.description !== null ? { description: job.description } : {}),
      endpoints: job.endpoints.map((endpoint, i) =>
        documentEndpoint(endpointKeys[i]!, endpoint.config, (id) => keyOfId.get(id)),
      ),
    };
  });
  const secrets = state.secretNames ?? [];
  return {
    apiVersion: CONFIG_API_VERSION,
    jobs,
    notificationChannels: state.channels.map(exportChannel),
    // Names only, and only when the account has shared secrets.
    ...(secrets.length > 0 ? { secrets: [...secrets].sort() } : {}),
  };
}

function exportChannel(channel: StoredChannel): Record<string, unknown> {
  const allEvents = channel.events.length === 0 || NOTIFICATION_EVENTS.every((event) => channel.events.includes(event));
  return {
    name: channel.name,
    type: channel.type,
    ...(channel.type === 'email' ? { recipients: channel.recipients } : { url: channel.url }),
    ...(allEvents ? {} : { events: channel.events }),
  };
}
