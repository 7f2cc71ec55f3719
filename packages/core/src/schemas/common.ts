import { z } from 'zod';
import { LIMITS } from './limits.js';

export const trimmedName = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(LIMITS.nameMaxLength, `must be at most ${LIMITS.nameMaxLength} characters`);

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
