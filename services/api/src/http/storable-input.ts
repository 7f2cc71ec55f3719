/**
 * API input PostgreSQL cannot store is refused up front: a string with U+0000 or a lone
 * UTF-16 surrogate anywhere in the path parameters, the query string or the JSON body (object keys
 * such as header names included), or a body nested deeper than JSON_MAX_DEPTH, answers
 * 400 VALIDATION_ERROR with details.field naming it. Before, such a string reached a write and failed
 * it: 12 of about 1,250 fuzzed requests answered 500.
 *
 * One check for every registered route, before its zod parse, so no route and no field can be
 * missed; the MCP tools call these same routes. Refused, not cleaned: a caller's own data is never
 * silently changed (data recorded from outside, such as response bodies, is cleaned instead).
 */
import { AppError, findUnstorableField, JSON_MAX_DEPTH, toStorableText, type UnstorableField } from '@kairos/core';
import type { NextFunction, Request, Response } from 'express';

const PROBLEM: Record<UnstorableField['reason'], string> = {
  text: 'must not contain U+0000 or an unpaired UTF-16 surrogate',
  key: 'field name must not contain U+0000 or an unpaired UTF-16 surrogate',
  depth: `nested deeper than ${JSON_MAX_DEPTH} levels`,
};

/** The field as details.field names it (dotted path), itself storable and printable. */
const fieldName = (path: (string | number)[]) => path.map((part) => toStorableText(String(part))).join('.');

function refuse(found: UnstorableField, where: string): AppError {
  const field = fieldName(found.path) || where;
  return new AppError('VALIDATION_ERROR', `${field}: ${PROBLEM[found.reason]}`, {
    field,
    issues: [{ field, message: PROBLEM[found.reason] }],
  });
}

/** Throws VALIDATION_ERROR for the first unstorable path parameter, query value or body field. */
export function assertStorableInput(input: { params: unknown; query: unknown; body: unknown }): void {
  for (const [where, value] of Object.entries(input)) {
    const found = findUnstorableField(value);
    if (found) throw refuse(found, where);
  }
}

/**
 * A path segment that is not valid percent-encoded UTF-8 ("%", "%FF", an encoded surrogate
 * "%ED%A0%80") makes the router's decodeURIComponent throw, which reached the error handler as an
 * unknown error (500). Checked before routing; the field is the path parameter of the route whose
 * template fits the path, else "path".
 */
export function rejectUndecodablePath(templates: () => string[]) {
  return (req: Request, _res: Response, next: NextFunction) => {
    const segments = req.path.split('/');
    const badIndex = segments.findIndex((segment) => !isDecodable(segment));
    if (badIndex === -1) return next();
    const field = paramAt(templates(), segments, badIndex) ?? 'path';
    const message = 'is not valid percent-encoded UTF-8';
    next(new AppError('VALIDATION_ERROR', `${field}: ${message}`, { field, issues: [{ field, message }] }));
  };
}

function isDecodable(segment: string): boolean {
  try {
    decodeURIComponent(segment);
    return true;
  } catch {
    return false;
  }
}

function paramAt(templates: string[], segments: string[], index: number): string | null {
  for (const template of templates) {
    const parts = template.split('/');
    if (parts.length !== segments.length) continue;
    const fits = parts.every((part, at) => part.startsWith(':') || part === segments[at]);
    if (fits && parts[index]!.startsWith(':')) return parts[index]!.slice(1);
  }
  return null;
}
