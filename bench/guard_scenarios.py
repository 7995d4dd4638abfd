"""Correction scenarios for bench/bench_guards.py, written down before the benchmark was first run.

Each: the user's words (as a correction would be mined), the repeated mistake(s) the approved rule
must stop, and near misses it must let through. Tools other than Bash are written "Edit:<path>".
"""
from __future__ import annotations

SCENARIOS: list[tuple[str, list[str], list[str]]] = [
    ("no, use pnpm, not npm", ["npm install", "npm run build"], ["pnpm install", "echo npm", "pnpm run build"]),
    ("never run git push --force on main", ["git push --force origin main", "git push -f"],
     ["git push origin main", "git push --force-with-lease origin feature"]),
    ("run tests with `uv run pytest`", ["pytest -q", "python -m pytest tests/"],
     ["uv run pytest -q", "uv run pytest tests/test_x.py"]),
    ("don't use pip install directly, use `uv add`", ["pip install requests"], ["uv add requests", "uv pip list"]),
    ("use yarn instead of npm here", ["npm install lodash"], ["yarn add lodash", "yarn install"]),
    ("stop using `docker compose down -v`, it wipes the database", ["docker compose down -v"],
     ["docker compose down", "docker compose up -d"]),
    ("never edit package-lock.json by hand", ["Edit:package-lock.json"], ["Edit:package.json"]),
    ("we use ruff, not black", ["black .", "black --check src"], ["ruff format .", "ruff check --fix"]),
    ("please use rg instead of grep", ["grep -rn TODO src"], ["rg TODO src", "git grep TODO"]),
    ("don't run `rm -rf node_modules`, just run pnpm install", ["rm -rf node_modules"], ["rm -rf dist"]),
    ("use `make test` instead of calling pytest directly", ["pytest", "pytest tests/unit"], ["make test"]),
    ("never commit with --no-verify", ["git commit --no-verify -m wip", "git commit -n -m wip"],
     ["git commit -m wip"]),
    ("don't use `git add .`, add files explicitly", ["git add ."], ["git add src/app.py"]),
    ("use bun, not node, to run scripts", ["node scripts/build.js"], ["bun scripts/build.js"]),
    ("never run `terraform apply` without a plan", ["terraform apply", "terraform apply -auto-approve"],
     ["terraform plan", "terraform apply plan.tfplan"]),
    ("never use `pkill -f node`", ["pkill -f node"], ["kill 1234"]),
    ("I want you to use `npm ci` instead of `npm install` in CI scripts", ["npm install"], ["npm ci"]),
    ("stop running `cargo build --release` for every check, use `cargo check`", ["cargo build --release"],
     ["cargo check", "cargo build"]),
    ("don't touch files in migrations/", ["Edit:db/migrations/0002_add_user.py"], ["Edit:db/models.py"]),
    ("never use `kubectl delete` on the prod namespace", ["kubectl delete pod api-1 -n prod"],
     ["kubectl get pods -n prod", "kubectl delete pod x -n dev"]),
    ("use `python3`, not `python`", ["python script.py"], ["python3 script.py"]),
    ("don't use npx, use pnpm dlx", ["npx prettier --write ."], ["pnpm dlx prettier --write ."]),
    ("we don't use poetry anymore, use uv", ["poetry install", "poetry add httpx"], ["uv sync", "uv add httpx"]),
    ("never run `git reset --hard`", ["git reset --hard HEAD~1", "git stash && git reset --hard origin/main"],
     ["git reset --soft HEAD~1", "git reset HEAD file.txt"]),
    ("do not write to .env files", ["Write:.env", "Edit:config/.env"], ["Edit:.env.example"]),
]
