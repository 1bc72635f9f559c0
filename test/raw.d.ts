/** Vite's `?raw` imports: a file's text, for tests that check configuration as written. */
declare module '*?raw' {
  const content: string;
  export default content;
}
