import { AppError, fieldPath, type FieldIssue } from '@kairos/core';
import type { z } from 'zod';

/** zod issues → VALIDATION_ERROR, with `details.field` naming the first offending field. */
export function validationError(issues: FieldIssue[], where = 'request'): AppError {
  const [first] = issues;
  const message = first ? (first.field ? `${first.field}: ${first.message}` : first.message) : `invalid ${where}`;
  return new AppError('VALIDATION_ERROR', message, {
    ...(first?.field ? { field: first.field } : {}),
    issues,
  });
}

export function zodIssues(error: z.ZodError): FieldIssue[] {
  return error.issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        field: fieldPath([...issue.path, key]),
        message: `unknown field ${JSON.stringify(key)}`,
      }));
    }
    // Array items as [n]: rules[2].when.all[0].path.
    const field = fieldPath(issue.path);
    const message = issue.code === 'invalid_type' && issue.input === undefined ? 'is required' : issue.message;
    return [{ field, message }];
  });
}

export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, where: string): z.output<S> {
  const result = schema.safeParse(value, { reportInput: true });
  if (!result.success) throw validationError(zodIssues(result.error), where);
  return result.data;
}
