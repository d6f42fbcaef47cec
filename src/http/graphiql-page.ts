// The GraphiQL page: Yoga's, with what it remembers kept for the browser tab only, and the schema fetched
// again when the pasted key changes.
import type { renderGraphiQL } from '@graphql-yoga/render-graphiql';

/**
 * GraphiQL saves its Headers pane (where the API key is pasted) and its tabs, which carry each tab's
 * headers, in localStorage: on disk, for every later visit, readable by any script on the origin for
 * as long as the browser keeps it. This page gives it sessionStorage instead, so the key lives as long
 * as the tab (a reload keeps it), as on the dashboard. What earlier versions of the page left in
 * localStorage is removed.
 */
const TAB_STORAGE = `<script>
  for (const name of ['graphiql:headers', 'graphiql:tabState']) window.localStorage.removeItem(name);
  (() => {
    // GraphiQL fetches the schema once, when the page opens: before a key is pasted that is refused, and the
    // Docs pane said "Error fetching schema" until a reload. It saves the Headers pane as it is typed; a
    // change there fetches the schema again (its own "Re-fetch GraphQL schema" button), once typing stops.
    const storage = window.sessionStorage;
    let headers = storage.getItem('graphiql:headers');
    let pending = 0;
    const refetch = () => document.querySelector('button[aria-label^="Re-fetch GraphQL schema"]')?.click();
    // A new tab ("+") opens with GraphiQL's default headers (none): it is given the headers of the tab it was
    // opened from, typed into its Headers pane as a user would (GraphiQL then keeps them with the tab).
    // GraphiQL saves every tab, the one left with what its editors hold, as it opens a new one.
    let before = JSON.parse(storage.getItem('graphiql:tabState') ?? 'null');
    const carryHeaders = (state) => {
      const count = state?.tabs?.length ?? 0;
      const opened = count === (before?.tabs?.length ?? 0) + 1 && state.activeTabIndex === count - 1;
      const from = state?.tabs?.[before?.activeTabIndex ?? count - 2];
      before = state;
      const carried = from?.headers || headers;
      if (!opened || !carried || state.tabs[count - 1]?.headers) return;
      setTimeout(() => {
        const input = document.querySelector('.monaco-editor[data-uri$="headers.json"] textarea');
        if (!input) return;
        input.focus();
        document.execCommand('selectAll');
        document.execCommand('insertText', false, carried);
      });
    };
    const tabStorage = new Proxy(storage, {
      get(target, name) {
        if (name === 'setItem') {
          return (key, value) => {
            target.setItem(key, value);
            if (key === 'graphiql:tabState') {
              try {
                carryHeaders(JSON.parse(value));
              } catch {}
              return;
            }
            if (key !== 'graphiql:headers' || value === headers) return;
            headers = value;
            clearTimeout(pending);
            pending = setTimeout(refetch, 400);
          };
        }
        const member = Reflect.get(target, name);
        return typeof member === 'function' ? member.bind(target) : member;
      },
    });
    Object.defineProperty(window, 'localStorage', { value: tabStorage, configurable: true });
  })();
</script>`;

/**
 * The page, with GraphiQL's bundle loaded on the first request for it: the bundle is ~28 MB of strings in
 * the heap, which a server with GRAPHIQL=false (production) never needs.
 */
export async function renderGraphiQLPage(options: Parameters<typeof renderGraphiQL>[0]): Promise<string> {
  const { renderGraphiQL } = await import('@graphql-yoga/render-graphiql');
  // First in <head>: before GraphiQL's own script reads either storage.
  return renderGraphiQL(options).replace('<head>', `<head>${TAB_STORAGE}`);
}
