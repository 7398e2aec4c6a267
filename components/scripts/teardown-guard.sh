set -euo pipefail
stacks=$(pulumi stack ls --json 2>/dev/null || echo '[]')
blocking=""
for s in $(printf '%s' "$stacks" | node -e 'let d="";process.stdin.on("data",c=>d+=c).on("end",()=>{for(const s of JSON.parse(d||"[]"))console.log(s.name)})'); do
  case "$s" in "$NVCF_STACK_SHORT"|"$NVCF_STACK_FQN") continue;; esac
  if pulumi stack export --stack "$s" 2>/dev/null | node -e '
    let d="";process.stdin.on("data",c=>d+=c).on("end",()=>{
      const res=(JSON.parse(d||"{}").deployment||{}).resources||[];
      const hit=res.some(r=>r.type==="pulumi:pulumi:StackReference"&&((r.inputs||{}).name===process.env.NVCF_STACK_FQN||(r.outputs||{}).name===process.env.NVCF_STACK_FQN));
      process.exit(hit?0:1)})'; then
    blocking="$blocking $s"
  fi
done
if [ -n "$blocking" ]; then
  echo "refusing to destroy control-plane stack $NVCF_STACK_FQN: compute-plane stack(s)$blocking still reference it." >&2
  echo "Destroy them first (pulumi destroy -s <stack>), then destroy this stack again." >&2
  exit 1
fi
echo "no compute-plane stack references $NVCF_STACK_FQN"
