// Agent text reaches this page only as data, and a frozen `Object.prototype` cannot be
// polluted by it (`__proto__` keys, merged objects). The window's Tauri freezes it before any
// script (`freezePrototype`); in a browser this module, imported before every other, does.
Object.freeze(Object.prototype);
