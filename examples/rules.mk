# SPDX-License-Identifier: MIT
# examples/rules.mk — `make manifests`: the Kubernetes manifests of examples/k8s/{rke2,kubeadm,openshift}/
# rendered from examples/k8s/template.yaml (examples/k8s/render) for this version and $(IMAGE)
# (localhost/etcd-fio:VERSION, the name the image archive loads as; IMAGE=REGISTRY/etcd-fio:VERSION for a
# registry of yours). The committed files are the render with the default IMAGE (tests/it_k8s.sh).
.PHONY: manifests
manifests:
	python3 examples/k8s/render $(FIOR_VERSION) $(IMAGE) examples/k8s
