"""Manifests the end-to-end tests apply, one namespace per test module/client."""

import textwrap

MULTI_DOC = textwrap.dedent("""\
    apiVersion: v1
    kind: Namespace
    metadata:
      name: {ns}
    ---
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: settings
      namespace: {ns}
    data:
      greeting: hello
    ---
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: extra
      namespace: {ns}
      labels:
        app: web
    data:
      a: "1"
    ---
    apiVersion: v1
    kind: Service
    metadata:
      name: web
      namespace: {ns}
    spec:
      selector:
        app: web
      ports:
        - name: http
          port: 80
          targetPort: 7000
    ---
    apiVersion: networking.k8s.io/v1
    kind: Ingress
    metadata:
      name: web
      namespace: {ns}
    spec:
      rules:
        - host: web.kube32.local
          http:
            paths:
              - path: /
                pathType: Prefix
                backend:
                  service:
                    name: web
                    port:
                      number: 80
    ---
    apiVersion: networking.k8s.io/v1
    kind: NetworkPolicy
    metadata:
      name: web-allow
      namespace: {ns}
    spec:
      podSelector:
        matchLabels:
          app: web
      policyTypes: ["Egress"]
      egress:
        - to:
            - ipBlock:
                cidr: 0.0.0.0/0
          ports:
            - protocol: TCP
              port: 8000
    """)

# What `kubectl apply` prints per document, in order.
APPLIED_OBJECTS = [
    "namespace/{ns}",
    "configmap/settings",
    "configmap/extra",
    "service/web",
    "ingress.networking.k8s.io/web",
    "networkpolicy.networking.k8s.io/web-allow",
]

# A pod whose image does not exist: enough to see it in tables; it never runs.
POD = textwrap.dedent("""\
    apiVersion: v1
    kind: Pod
    metadata:
      name: idle
      namespace: {ns}
      labels:
        app: idle
    spec:
      containers:
        - name: main
          image: idle.invalid/none:1
          resources:
            limits:
              memory: 64Ki
    """)
