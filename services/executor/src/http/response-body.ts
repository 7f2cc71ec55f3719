/**
 * How a response body is stored on the Run.
 *
 * - The executor keeps at most maxResponseSizeKb * 1024 bytes (decoded, after gzip/deflate/br, so
 *   a compression bomb stops at the limit too) and stops reading there. The prefix is kept and
 *   flagged truncated: dropping an oversized body, as the closest product did, leaves the planner
 *   blind. Being large does not fail the run.
 * - A complete body that parses as JSON is stored parsed ('json'); any other non-empty body as
 *   UTF-8 text ('text'); a truncated body is always text, cut at a character boundary; an empty
 *   body is 'empty' with a null body.
 * - responseSizeBytes is the body size as far as it is known: the larger of the bytes received
 *   (decoded) and the declared Content-Length (only for uncompressed responses: for compressed
 *   ones it counts compressed bytes). So an oversized response with Content-Length reports its
 *   real size; an oversized chunked one reports a lower bound (the bytes received before stopping).
 * - The body is made storable (packages/core storable.ts): invalid UTF-8 decodes to U+FFFD, and each
 *   U+0000 and lone surrogate (e.g. the JSON escape "\ud800") becomes U+FFFD, in JSON strings and
 *   keys alike, keeping the JSON structure; JSON nested deeper than JSON_MAX_DEPTH is kept as text.
 *   PostgreSQL refuses those characters: one refused body would fail the whole recording
 *   batch and re-send the request on every retry. responseBodyAltered says it happened.
 */
import { isUtf8 } from 'node:buffer';
import { toStorableJson, toStorableText } from '@kairos/core';
import type { ResponseFormat } from './types.js';

export interface StoredBody {
  responseBody: unknown | null;
  responseFormat: ResponseFormat;
  /** Some bytes or characters were replaced by U+FFFD to make the body storable. */
  responseBodyAltered: boolean;
}

/** Drops a trailing, incomplete UTF-8 sequence left by cutting a body at a byte limit. */
export function trimIncompleteUtf8(bytes: Buffer): Buffer {
  let continuationBytes = 0;
  while (continuationBytes < 3 && continuationBytes < bytes.length) {
    const byte = bytes[bytes.length - 1 - continuationBytes]!;
    if ((byte & 0xc0) !== 0x80) break;
    continuationBytes += 1;
  }
  const leadIndex = bytes.length - 1 - continuationBytes;
  const lead = bytes[leadIndex];
  if (lead === undefined || lead < 0xc0) return bytes;
  const sequenceLength = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
  return continuationBytes + 1 < sequenceLength ? bytes.subarray(0, leadIndex) : bytes;
}

export function decodeResponseBody(bytes: Buffer, isComplete: boolean): StoredBody {
  const kept = isComplete ? bytes : trimIncompleteUtf8(bytes);
  const isValidUtf8 = isUtf8(kept);
  const text = kept.toString('utf8').replace(/^\uFEFF/, '');
  if (text.length === 0) return { responseBody: null, responseFormat: 'empty', responseBodyAltered: false };
  if (isComplete) {
    let parsed: { value: unknown } | null = null;
    try {
      parsed = { value: JSON.parse(text) as unknown };
    } catch {
      // Not JSON: stored as text below.
    }
    const storable = parsed ? toStorableJson(parsed.value) : null;
    if (storable) {
      return {
        responseBody: storable.value,
        responseFormat: 'json',
        responseBodyAltered: storable.isAltered || !isValidUtf8,
      };
    }
  }
  const storableText = toStorableText(text);
  return {
    responseBody: storableText,
    responseFormat: 'text',
    responseBodyAltered: storableText !== text || !isValidUtf8,
  };
}

export function responseSizeBytes(receivedBytes: number, declaredBytes: number | null): number {
  return Math.max(receivedBytes, declaredBytes ?? 0);
}
