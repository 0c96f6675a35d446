// The one inline script of the app: it runs in <head> before first paint so the page never flashes the wrong theme.
// It is a constant (no user data) and mirrors applyTheme() in theme-provider.tsx.
export const THEME_STORAGE_KEY = 'lagoon-theme';

export const THEME_SCRIPT = `(function(){try{var t=localStorage.getItem('${THEME_STORAGE_KEY}');var d=t==='dark'||(t!=='light'&&window.matchMedia('(prefers-color-scheme: dark)').matches);var e=document.documentElement;e.classList.toggle('dark',d);e.style.colorScheme=d?'dark':'light';}catch(_){}})();`;
