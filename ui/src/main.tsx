import './freeze';
import { render } from 'preact';
import { inWindow } from './api';
import { App } from './app';

// Uncaught errors are shown (and visible to the end-to-end tests), never swallowed.
function report(message: string) {
  const box = document.getElementById('js-error') ?? document.body.appendChild(document.createElement('pre'));
  box.id = 'js-error';
  box.dataset.testid = 'js-error';
  box.textContent = `${box.textContent ?? ''}${message}\n`;
}
window.addEventListener('error', (event) => {
  const error: unknown = event.error;
  const where = error instanceof Error && error.stack ? `\n${error.stack}` : ` (${event.filename}:${event.lineno}:${event.colno})`;
  report(`${String(error ?? event.message)}${where}`);
});
window.addEventListener('unhandledrejection', (event) => {
  const reason: unknown = event.reason;
  report(reason instanceof Error && reason.stack ? `${String(reason)}\n${reason.stack}` : String(reason));
});

// In a browser the desk is an installable app: its worker shows pushed prompts (`sw.js`).
if (!inWindow && 'serviceWorker' in navigator && window.isSecureContext) {
  navigator.serviceWorker.register('sw.js', { scope: './' }).catch((err: unknown) => console.warn('no service worker', err));
}

const root = document.getElementById('app');
if (root) render(<App />, root);
