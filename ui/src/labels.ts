// The service's codes in words, shared by the views: roles, scopes, durations.
import type { Role, Scope } from './types';

/** Roles in words, as people say them. */
export const ROLE_NAMES: Record<Role, string> = {
  task_author: 'Task author',
  repo_maintainer: 'Repository maintainer',
  security_reviewer: 'Security reviewer',
  platform_admin: 'Platform admin',
};

/** The scopes by what they cover (a command profile, paths, a task type and a repository
 * hold for any run of the agent that asked). */
export const SCOPE_LABELS: Record<Scope, string> = {
  once: 'Once (this exact action)',
  command_profile: 'Command profile (any run)',
  path_pattern: 'These paths (any run)',
  run: 'This run',
  task_type: 'Task type (any run)',
  repo: 'Repository (any run)',
  org: 'Organisation',
  exception: 'Exception (past a policy rule, in this repository, any agent and run)',
};

/** "15 min", "1 h", "4 h 30 min", "2 d". */
export function durationLabel(seconds: number): string {
  const minutes = Math.max(1, Math.floor(seconds / 60));
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  if (hours >= 48 && hours % 24 === 0 && rest === 0) return `${hours / 24} d`;
  return rest === 0 ? `${hours} h` : `${hours} h ${rest} min`;
}
