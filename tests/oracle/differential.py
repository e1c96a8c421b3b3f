#!/usr/bin/env python3
"""Differential test of `budgetlab finalize --strategy reference` (and `send-guard`).

An independent, deliberately plain implementation of the reference finalizer, written from the rules of the
foundation issue in Python (UTF-16 lengths from Python's own UTF-16 encoder, the water-fill as its iterative
definition, persistence ids by their literal rule), checked first against the production sample vectors and then
against the binary on random batches with emoji, CJK, plan-mode reminders, awkward call ids, prior
persistence decisions and failing writes.

Usage: differential.py BUDGETLAB_BINARY VECTORS_DIR SEED CASES
"""
import hashlib
import json
import random
import subprocess
import sys

def u16(s): return len(s.encode('utf-16-le'))//2
def head_cut(s, n):
    b = s.encode('utf-16-le')[:2*n]
    if len(b) >= 2:
        last = int.from_bytes(b[-2:], 'little')
        if 0xD800 <= last <= 0xDBFF: b = b[:-2]
    return b.decode('utf-16-le')
def tail_cut(s, n):
    e = s.encode('utf-16-le')
    if n <= 0: return ''
    b = e[-2*n:] if 2*n <= len(e) else e
    if len(b) >= 2:
        first = int.from_bytes(b[:2], 'little')
        if 0xDC00 <= first <= 0xDFFF: b = b[2:]
    return b.decode('utf-16-le')

def finalize(batch, budget, reminders, artifact_dir, fail, guard=False):
    """The reference; with `guard`, the send guard (output and error only, no persistence)."""
    batch = json.loads(json.dumps(batch))
    persisted = []
    if budget is None or budget <= 0: return batch, persisted
    slots = []  # (e, p, kind, prefix, text)
    for ei, e in enumerate(batch):
        for pi, p in enumerate(e['responseParts']):
            if not guard and isinstance(p.get('text'), str): slots.append((ei, pi, 'text', '', p['text']))
            fr = p.get('functionResponse')
            if isinstance(fr, dict) and isinstance(fr.get('response'), dict):
                r = fr['response']
                o = r.get('output')
                if isinstance(o, str) and o != '':
                    name = fr['name'] if ('name' in fr and fr['name'] is not None) else e['toolName']
                    prefix, rest = '', o
                    if name == 'enter_plan_mode':
                        for rem in reminders:
                            if o == rem: prefix, rest = o, ''; break
                            if o.startswith(rem + '\n\n'): prefix, rest = rem + '\n\n', o[len(rem)+2:]; break
                    if rest != '': slots.append((ei, pi, 'output', prefix, rest))
                er = r.get('error')
                if isinstance(er, str): slots.append((ei, pi, 'error', '', er))
    lens = [u16(s[4]) for s in slots]
    if sum(lens) <= budget: return batch, persisted
    alloc = [None]*len(slots); active = list(range(len(slots))); rem = budget
    while True:
        share = rem // len(active)
        small = [i for i in active if lens[i] <= share]
        if not small:
            for i in active: alloc[i] = share
            left = rem - share*len(active)
            for i in active[:left]: alloc[i] += 1
            break
        for i in small: alloc[i] = lens[i]; rem -= lens[i]
        active = [i for i in active if i not in small]
    def norm(cid):
        t = cid.rstrip('/')
        return t.rsplit('/',1)[-1].replace('\0','_')
    ids = [norm(e['callId']) for e in batch]
    used = set()
    for ei, e in enumerate(batch if not guard else []):
        mine = [k for k,s in enumerate(slots) if s[0]==ei]
        if not any(lens[k] > alloc[k] for k in mine): continue
        if 'persistedOutputFiles' in e: continue
        content = '\n\n'.join(slots[k][4] for k in mine)
        i = norm(e['callId'])
        if i in ('', '.', '..'):
            persisted.append({'callId': e['callId'], 'toolName': e['toolName'], 'content': content, 'path': None})
            e['persistedOutputFiles'] = []
            continue
        if ids.count(i) == 1 and i not in used: chosen = i
        else:
            k = 1
            while f'{i}-{k}' in ids or f'{i}-{k}' in used: k += 1
            chosen = f'{i}-{k}'
        used.add(chosen)
        if chosen in fail:
            persisted.append({'callId': chosen, 'toolName': e['toolName'], 'content': content, 'path': None})
            e['persistedOutputFiles'] = []
        else:
            path = artifact_dir + '/' + chosen + '.txt'
            persisted.append({'callId': chosen, 'toolName': e['toolName'], 'content': content, 'path': path})
            e['persistedOutputFiles'] = [path]
    for k, (ei, pi, kind, prefix, text) in enumerate(slots):
        A = alloc[k]
        if lens[k] <= A: continue
        paths = batch[ei].get('persistedOutputFiles') or []
        H = 'Tool output truncated.\nFull output sha256: ' + hashlib.sha256(text.encode()).hexdigest()
        if len(paths) == 1: H += '\nPersisted tool-output artifact: ' + paths[0]
        elif len(paths) > 1: H += '\nPersisted tool-output artifacts:' + ''.join('\n- ' + p for p in paths)
        if A <= 0: f = ''
        elif u16(H) >= A or A - u16(H) - 2 <= 0: f = head_cut(H, A)
        else:
            pv = A - u16(H) - 2
            if pv <= 5: f = H + '\n\n' + head_cut(text, pv)
            else:
                c = pv - 5; h = c // 5; t = c - h
                f = H + '\n\n' + head_cut(text, h) + '\n...\n' + tail_cut(text, t)
        part = batch[ei]['responseParts'][pi]
        if kind == 'text': part['text'] = f
        else: part['functionResponse']['response'][kind] = prefix + f
    return batch, persisted


BIN, V = sys.argv[1], sys.argv[2]
rem=[open(V+'/plan-reminder-edit.txt').read(), open(V+'/plan-reminder-plan-only.txt').read()]
# sanity: the oracle reproduces the sample vectors
for line in open(V+'/finalizer-sample.jsonl'):
    d=json.loads(line)
    b=d['budget']; b=None if b=='inf' else b
    got=finalize(d['input'], b, rem, d['artifactDir'], set(d['failPersist']))
    assert {'entries':got[0],'persisted':got[1]}==d['expected'], d['name']
print('oracle matches the sample')
random.seed(int(sys.argv[3]))
alph=['a','b','\n','é','中','😀','👍🏽',' ','x'*5, 'Tool output truncated.']
def txt(n): return ''.join(random.choice(alph) for _ in range(n))
def part():
    r=random.random()
    if r<0.15: return {'text': txt(random.randint(0,300))}
    if r<0.2: return {'inlineData': {'mimeType':'image/png','data':'AAAA'}}
    if r<0.3:
        o=random.choice([rem[0], rem[1], rem[0]+'\n\n'+txt(random.randint(0,400)), rem[1]+'\n', txt(50)])
        fr={'id':'p','response':{'output':o}}
        nm=random.choice(['enter_plan_mode', None, '', 'x', 'ABSENT'])
        if nm!='ABSENT': fr['name']=nm
        return {'functionResponse': fr}
    resp={}
    if random.random()<0.8: resp['output']=random.choice([txt(random.randint(0,2000)), '', {'k':1}])
    if random.random()<0.4: resp['error']=random.choice([txt(random.randint(0,300)), '', 7])
    return {'functionResponse': {'id':'i','name':random.choice(['shell','enter_plan_mode']),'response':resp}}
fails=0
N=int(sys.argv[4])
for case in range(N):
    batch=[]
    for _ in range(random.randint(0,6)):
        e={'callId':random.choice(['c','c','c-1','d/c','.','..','','a/','x\u0000y','c-2','😀']),'toolName':random.choice(['shell','enter_plan_mode'])}
        e['responseParts']=[part() for _ in range(random.randint(0,3))]
        r=random.random()
        if r<0.2: e['persistedOutputFiles']=[]
        elif r<0.35: e['persistedOutputFiles']=['/p/one.out']
        elif r<0.45: e['persistedOutputFiles']=['/p/a','/p/b']
        batch.append(e)
    budget=random.choice([random.randint(1,50), random.randint(1,500), random.randint(100,3000), -1, 0])
    fail=set(random.sample(['c','c-1','c-2','c-3','d','x_y','😀','a'], random.randint(0,2)))
    guard=random.random()<0.25
    cmd=[BIN,'finalize','--budget',str(budget),'--artifact-dir','/art','--strategy','send-guard' if guard else 'reference',
         '--plan-reminder-file',V+'/plan-reminder-edit.txt','--plan-reminder-file',V+'/plan-reminder-plan-only.txt']
    for f in fail: cmd+=['--fail-persist',f]
    r=subprocess.run(cmd,input=json.dumps(batch).encode(),capture_output=True)
    if r.returncode!=0:
        print('rc',r.returncode,r.stderr.decode()[:200]); fails+=1; continue
    got=json.loads(r.stdout)
    exp=finalize(batch, budget, rem, '/art', fail, guard)
    if got!={'entries':exp[0],'persisted':exp[1]}:
        fails+=1
        if fails<=3:
            print('MISMATCH budget',budget,'fail',fail)
            print(json.dumps(batch)[:1500])
            print('got',json.dumps(got)[:1500]); print('exp',json.dumps({'entries':exp[0],'persisted':exp[1]})[:1500])
print('cases',N,'mismatches',fails)
sys.exit(1 if fails else 0)
