import { describe, expect, it } from 'vitest';
import { hasNamelessParam } from '../../src/http/openapi';

// Reads a request's URL as text where `new URL` parsed it again on every query-validated request:
// held to URL's own answer on every query form below.
const QUERIES = [
  '',
  '?',
  '?=',
  '?=open',
  '?a=1',
  '?a=1&=x',
  '?a=1&&b=2',
  '?a=&b=',
  '?&',
  '?&=',
  '?a==b',
  '?%3D=1',
  '?a=1#=frag',
  '?a=1#&=frag',
  '#?=x',
  '?+=1',
  '?a=1&b=%26=',
];

describe('reading a request URL as text', () => {
  it('finds a nameless query parameter exactly where URLSearchParams does', () => {
    for (const query of QUERIES) {
      const url = `https://crm.test/v1/deals${query}`;
      expect(hasNamelessParam(url), url).toBe(new URL(url).searchParams.has(''));
    }
  });
});
