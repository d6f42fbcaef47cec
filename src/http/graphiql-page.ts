// The GraphiQL page: Yoga's, with what it remembers kept for the browser tab only.
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';

/**
 * GraphiQL saves its Headers pane (where the API key is pasted) and its tabs, which carry each tab's
 * headers, in localStorage: on disk, for every later visit, readable by any script on the origin for
 * as long as the browser keeps it. This page gives it sessionStorage instead, so the key lives as long
 * as the tab (a reload keeps it), as on the dashboard. What earlier versions of the page left in
 * localStorage is removed.
 */
const TAB_STORAGE = `<script>
  for (const name of ['graphiql:headers', 'graphiql:tabState']) window.localStorage.removeItem(name);
  Object.defineProperty(window, 'localStorage', { value: window.sessionStorage, configurable: true });
</script>`;

export function renderGraphiQLPage(options: Parameters<typeof renderGraphiQL>[0]): string {
  // First in <head>: before GraphiQL's own script reads either storage.
  return renderGraphiQL(options).replace('<head>', `<head>${TAB_STORAGE}`);
}
