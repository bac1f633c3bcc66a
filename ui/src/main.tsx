import { render } from 'preact';
import { App } from './app';

// Uncaught errors are shown (and visible to the end-to-end tests), never swallowed.
function report(message: string) {
  const box = document.getElementById('js-error') ?? document.body.appendChild(document.createElement('pre'));
  box.id = 'js-error';
  box.dataset.testid = 'js-error';
  box.textContent = `${box.textContent ?? ''}${message}\n`;
}
window.addEventListener('error', (event) => report(String(event.error ?? event.message)));
window.addEventListener('unhandledrejection', (event) => report(String(event.reason)));

const root = document.getElementById('app');
if (root) render(<App />, root);
