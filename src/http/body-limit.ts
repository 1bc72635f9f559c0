import { bodyLimit } from 'hono/body-limit';
import { ApiError } from './problem';

export const MAX_BODY_BYTES = 1024 * 1024;

/** 413 for a body over 1 MiB, whether its Content-Length says so or its stream does. */
export const limitedBody = bodyLimit({
  maxSize: MAX_BODY_BYTES,
  onError: () => {
    throw new ApiError(413, 'body_too_large', `The body is over ${MAX_BODY_BYTES} bytes.`);
  },
});
