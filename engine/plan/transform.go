package plan

// transform rewrites the tree under n bottom up: each node's children first, then the node itself by f, which
// returns the node to put in its place (itself, when it has nothing to change). It is the one walk the
// planner's rewrites share, so that a node type added to the plan is walked by all of them once setChild
// knows it; a node setChild does not know keeps its children as they are.
func transform(n Node, f func(Node) Node) Node {
	for i, c := range n.Children() {
		setChild(n, i, transform(c, f))
	}
	return f(n)
}

// setChild puts c in place of n's i-th child (as Children lists them). A join's plan sees the same sides as
// the join node.
func setChild(n Node, i int, c Node) {
	switch n := n.(type) {
	case *whereNode:
		n.in = c
	case *projectNode:
		n.in = c
	case *summarizeNode:
		n.in = c
	case *sideFixNode:
		n.in = c
	case *sortNode:
		n.in = c
	case *boundedTopNode:
		n.in = c
	case *takeNode:
		n.in = c
	case *distinctNode:
		n.in = c
	case *countNode:
		n.in = c
	case *makeIntervalsNode:
		n.in = c
	case *joinNode:
		setSide(n, i, c)
	case *intervalJoinNode:
		setSide(n.joinNode, i, c)
	case *joinAggNode:
		setSide(n.join, i, c)
	case *joinGroupAggNode:
		setSide(n.join, i, c)
	}
}

func setSide(j *joinNode, i int, c Node) {
	if i == 0 {
		j.left = c
	} else {
		j.right = c
	}
	j.jp.left, j.jp.right = j.left, j.right
}
