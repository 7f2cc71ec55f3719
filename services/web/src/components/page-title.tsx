/**
 * Where a keyboard or screen-reader user is: every page names itself in the document title
 * ("Check orders · Endpoint · Kairos", what a screen reader reads first and a tab shows), and after
 * each navigation focus moves to the new page's <h1>, so the change is announced and Tab continues
 * from the page, not from the top of the document (or from nowhere, when the clicked link is gone).
 *
 * The frame (Layout) notes each change of path; the page's heading takes focus once it renders,
 * which may be a few fetches later. Until then focus waits on <main>, never on the page body.
 * Changes of the query string or the #hash (a filter, a range, a settings section) are not
 * navigations here: focus stays where the person put it.
 */
import { createContext, useContext, useEffect, useLayoutEffect, useMemo, useRef, type ReactNode } from 'react';
import { useLocation } from 'react-router';

const SITE = 'Kairos';

/** The document title: the most specific part first, "Kairos" last; empty parts are left out. */
export function pageTitle(...parts: (string | null | undefined)[]): string {
  return [...parts.filter((part): part is string => Boolean(part)), SITE].join(' · ');
}

export function usePageTitle(...parts: (string | null | undefined)[]): void {
  const title = pageTitle(...parts);
  useEffect(() => {
    document.title = title;
  }, [title]);
}

/** Whether the heading of `pathname` should take focus now: true once per navigation. */
interface PendingFocus {
  take(pathname: string): boolean;
}
const PendingFocusContext = createContext<PendingFocus | null>(null);

export function NavigationFocus({ children }: { children: ReactNode }) {
  const { pathname } = useLocation();
  const pending = useRef<string | null>(null);
  const isFirst = useRef(true);
  // A layout effect: it runs before the new page's (passive) effects, so a heading already rendered
  // in this commit sees the navigation.
  useLayoutEffect(() => {
    if (isFirst.current) {
      isFirst.current = false; // a page load is not a navigation: the browser starts at the top
      return;
    }
    pending.current = pathname;
  }, [pathname]);
  // After the page's effects: no heading took focus yet (still loading), so hold it on <main>.
  useEffect(() => {
    if (pending.current === pathname) document.getElementById('main')?.focus({ preventScroll: true });
  }, [pathname]);
  const focus = useMemo<PendingFocus>(
    () => ({
      take(path) {
        if (pending.current !== path) return false;
        pending.current = null;
        return true;
      },
    }),
    [],
  );
  return <PendingFocusContext.Provider value={focus}>{children}</PendingFocusContext.Provider>;
}

/**
 * The page's <h1>: focusable by script only (tabIndex -1), it takes focus after a navigation to its
 * page, or on mount when `focusOnMount` (the sign-in page shown after signing out).
 */
export function PageHeading({
  children,
  focusOnMount = false,
  className,
}: {
  children: ReactNode;
  focusOnMount?: boolean;
  className?: string;
}) {
  const ref = useRef<HTMLHeadingElement>(null);
  const pending = useContext(PendingFocusContext);
  const { pathname } = useLocation();
  useEffect(() => {
    const isNavigation = pending?.take(pathname) ?? false;
    if (isNavigation || focusOnMount) ref.current?.focus();
  }, [pending, pathname, focusOnMount]);
  return (
    <h1 ref={ref} tabIndex={-1} className={className}>
      {children}
    </h1>
  );
}

/** After an action removed the control that had focus (archive): focus goes to the page's heading. */
export function focusPageHeading(): void {
  document.querySelector<HTMLElement>('main h1')?.focus();
}
