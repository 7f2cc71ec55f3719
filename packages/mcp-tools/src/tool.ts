/**
 * One shape for every Kairos MCP tool: a zod input schema (built from the API's own schemas), an
 * optional output schema (the API's response records), and a call against the API.
 *
 * Results carry structuredContent (the API's answer, parsed by the output schema, so fields the
 * schema does not know are dropped and the client's validation always passes) and a text
 * rendering: a one-line summary, then the same JSON. Every failure is a tool error
 * (isError: true) whose text starts with the API's error code: `NOT_FOUND: job not found`.
 */
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { KairosApiError, type KairosClient } from '@kairos/client';

type Structured = Record<string, unknown>;

export interface KairosTool {
  name: string;
  title: string;
  description: string;
  input: z.ZodObject;
  output: z.ZodObject | undefined;
  annotations: ToolAnnotations;
  call(api: KairosClient, args: unknown): Promise<CallToolResult>;
}

export interface ToolSpec<I extends z.ZodObject, R> {
  name: string;
  title: string;
  description: string;
  input: I;
  output?: z.ZodType<R>;
  /** Defaults: not read-only, not destructive, not idempotent, closed world (only the Kairos API). */
  annotations?: Omit<ToolAnnotations, 'title'>;
  run(api: KairosClient, args: z.output<I>): Promise<R>;
  /** The first line of the text rendering. */
  summarize(result: R): string;
}

/**
 * With an output schema, the result type is the schema's: what `run` answers (the API's record, typed
 * by its OpenAPI document) is parsed by it before anyone sees it.
 */
export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(
  spec: Omit<ToolSpec<I, z.output<O>>, 'run'> & {
    output: O;
    run(api: KairosClient, args: z.output<I>): Promise<unknown>;
  },
): KairosTool;
/** Without one, it is what run returns. */
export function defineTool<I extends z.ZodObject, R extends Structured>(spec: ToolSpec<I, R>): KairosTool;
export function defineTool<I extends z.ZodObject, R extends Structured>(spec: ToolSpec<I, R>): KairosTool {
  return {
    name: spec.name,
    title: spec.title,
    description: spec.description,
    input: spec.input,
    output: spec.output as z.ZodObject | undefined,
    annotations: { title: spec.title, openWorldHint: false, ...spec.annotations },
    async call(api, args) {
      try {
        const raw = await spec.run(api, args as z.output<I>);
        const result = spec.output ? parseOutput(spec.output, raw) : raw;
        return {
          content: [{ type: 'text', text: `${spec.summarize(result)}\n\n${JSON.stringify(result, null, 2)}` }],
          structuredContent: result as Structured,
        };
      } catch (error) {
        return toolError(error);
      }
    },
  };
}

function parseOutput<R>(schema: z.ZodType<R>, raw: unknown): R {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    throw new KairosApiError(
      'INTERNAL_ERROR',
      `the API answered in an unexpected shape (is the MCP server the same version as the API?): ${z.prettifyError(parsed.error)}`,
      null,
    );
  }
  return parsed.data;
}

/** `CODE: message`, then the details as JSON when the API gave any. */
export function toolError(error: unknown): CallToolResult {
  const apiError =
    error instanceof KairosApiError
      ? error
      : new KairosApiError('INTERNAL_ERROR', error instanceof Error ? error.message : String(error), null);
  const details = apiError.details ? `\ndetails: ${JSON.stringify(apiError.details)}` : '';
  return { isError: true, content: [{ type: 'text', text: `${apiError.code}: ${apiError.message}${details}` }] };
}

/** An id argument. Ids are opaque; an unknown or malformed one is the API's NOT_FOUND. */
export const idArg = (what: string) =>
  z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(100)
    .meta({ description: `The ${what}'s id` });

/** A record schema as a tool output: a plain object at the root (MCP requires type: object there). */
export const asOutput = <Shape extends z.ZodRawShape>(record: z.ZodObject<Shape>) => z.object(record.shape);

export const READ_ONLY = { readOnlyHint: true } as const;
export const IDEMPOTENT_CHANGE = { readOnlyHint: false, destructiveHint: false, idempotentHint: true } as const;
export const CHANGE = { readOnlyHint: false, destructiveHint: false, idempotentHint: false } as const;

/**
 * Said by every list tool's description: how an agent reaches every item (the API's lists answer at
 * most 1000 items a call; an account may have 100,000 endpoints).
 */
export const PAGING_NOTE =
  'Paged: limit (at most 1000) and offset; the result gives total, hasMore and nextOffset. To read every ' +
  'item, call again with offset = nextOffset (same other arguments) until hasMore is false.';

const pagingFields = {
  total: z.number().int().meta({ description: 'Items matching the filter, over all pages' }),
  hasMore: z.boolean().meta({ description: 'More items follow this page (call again with offset = nextOffset)' }),
  nextOffset: z
    .number()
    .int()
    .nullable()
    .meta({ description: 'The offset of the next page; null when this page is the last' }),
};

/** A list page as structured content: the items under `key`, the total and where the next page starts. */
const pageOutput = <K extends string, T extends z.ZodType>(key: K, item: T) =>
  z.object({ ...({ [key]: z.array(item) } as Record<K, z.ZodArray<T>>), ...pagingFields });

/** An API page object (e.g. the analysis sessions' { sessions, total, hasMore }) with nextOffset added. */
export const withNextOffsetOutput = <Shape extends z.ZodRawShape>(page: z.ZodObject<Shape>) =>
  z.object({ ...page.shape, nextOffset: pagingFields.nextOffset });

export interface PageInfo {
  total: number;
  hasMore: boolean;
  nextOffset: number | null;
}

export const pageInfo = (itemCount: number, total: number, offset = 0): PageInfo => {
  const hasMore = offset + itemCount < total;
  return { total, hasMore, nextOffset: hasMore ? offset + itemCount : null };
};

/** The summary line of a page: "100 of 100000 jobs; more: call again with offset 100." */
export const describePage = (what: string, shown: number, page: PageInfo): string =>
  `${shown} of ${page.total} ${what}` +
  (page.nextOffset !== null ? `; more: call again with offset ${page.nextOffset}.` : '.');

/** Items a list tool renders under its summary line: enough to see a pattern, short enough to skim. */
const SUMMARY_ITEMS = 5;

export interface ListToolSpec<
  I extends z.ZodObject<{ offset: z.ZodType<number> }>,
  K extends string,
  T extends z.ZodType,
> {
  name: string;
  title: string;
  /** What the tool lists; PAGING_NOTE is appended. */
  description: string;
  input: I;
  /** Where the result carries the items, and the noun of the summary line. */
  key: K;
  item: T;
  /** A page of the list (fetchPage): its items are parsed by `item`. */
  list(api: KairosClient, args: z.output<I>): Promise<{ items: unknown[]; total: number }>;
  /** When given, the first SUMMARY_ITEMS items are rendered one a line under the summary line. */
  describeItem?: (item: z.output<T>) => string;
}

/**
 * A read-only tool over one of the API's list routes (items plus X-Total-Count): its result is a
 * page, { [key]: items, total, hasMore, nextOffset }, nextOffset counted from the call's offset.
 */
export function defineListTool<
  I extends z.ZodObject<{ offset: z.ZodType<number> }>,
  K extends string,
  T extends z.ZodType,
>(spec: ListToolSpec<I, K, T>): KairosTool {
  type Items = Record<K, z.output<T>[]>;
  return defineTool<I, Items & PageInfo>({
    name: spec.name,
    title: spec.title,
    description: `${spec.description} ${PAGING_NOTE}`,
    input: spec.input,
    output: pageOutput(spec.key, spec.item) as z.ZodType<Items & PageInfo>,
    annotations: READ_ONLY,
    run: async (api, args) => {
      const { items, total } = await spec.list(api, args);
      return { ...({ [spec.key]: items as z.output<T>[] } as Items), ...pageInfo(items.length, total, args.offset) };
    },
    summarize: (page) => {
      const items = page[spec.key];
      const shown = spec.describeItem ? items.slice(0, SUMMARY_ITEMS).map(spec.describeItem) : [];
      return [describePage(spec.key, items.length, page), ...shown].join('\n');
    },
  });
}
