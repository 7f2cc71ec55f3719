import { z } from 'zod';
import { LIMITS } from './limits.js';

export const trimmedName = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(LIMITS.nameMaxLength, `must be at most ${LIMITS.nameMaxLength} characters`);

/**
 * A key: the stable name a configuration file gives a job (unique per account) or an endpoint (unique
 * per job), so the file names the same resource in every account and after every rename. Lower case,
 * like a DNS label, so keys compare as they read.
 */
export const RESOURCE_KEY_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;
export const resourceKey = z
  .string()
  .regex(
    RESOURCE_KEY_PATTERN,
    'must be a key: 1 to 63 lower-case letters, digits, - and _, starting with a letter or a digit',
  )
  .meta({ description: 'Stable name for configuration files (a slug)', example: 'nightly-export' });

export const descriptionText = z
  .string()
  .max(LIMITS.descriptionMaxLength, `must be at most ${LIMITS.descriptionMaxLength} characters`);

export const timestamp = z.iso
  .datetime({ offset: true })
  .meta({ description: 'ISO 8601 timestamp', example: '2026-11-21T12:00:00.000Z' });

/** limit/offset paging shared by list routes. */
export const pagingQuery = (defaultLimit: number) =>
  z.object({
    limit: z.coerce
      .number()
      .int('must be an integer')
      .min(1, 'must be at least 1')
      .max(LIMITS.listMaxLimit, `must be at most ${LIMITS.listMaxLimit}`)
      .default(defaultLimit)
      .meta({ description: `Page size (default ${defaultLimit}, at most ${LIMITS.listMaxLimit})` }),
    offset: z.coerce
      .number()
      .int('must be an integer')
      .min(0, 'must be at least 0')
      .default(0)
      .meta({ description: 'Items to skip' }),
  });
