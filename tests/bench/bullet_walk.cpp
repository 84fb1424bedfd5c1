/*
 * bullet_walk.cpp - bullet_walk.h over Bullet 3 (single precision, as
 * Debian builds it and most games link it): a btDiscreteDynamicsWorld with
 * a dynamic-tree broad phase, the level as one static
 * btBvhTriangleMeshShape, and one btKinematicCharacterController per
 * walker on a btPairCachingGhostObject with a z-up capsule, as Bullet's
 * own character demo sets it up. Characters are in the character filter
 * and meet only static geometry, as sweep's walkers meet only the level.
 */
#include "tests/bench/bullet_walk.h"

#include <cmath>
#include <new>
#include <vector>

#include <btBulletDynamicsCommon.h>
#include <BulletCollision/CollisionDispatch/btGhostObject.h>
#include <BulletDynamics/Character/btKinematicCharacterController.h>

struct bullet_walk {
    btDefaultCollisionConfiguration config;
    btCollisionDispatcher dispatcher{&config};
    btDbvtBroadphase broadphase;
    btSequentialImpulseConstraintSolver solver;
    btDiscreteDynamicsWorld world{&dispatcher, &broadphase, &solver, &config};
    btGhostPairCallback ghost_pairs;
    std::vector<btScalar> vertices;
    std::vector<int> indices;
    btTriangleIndexVertexArray *mesh = nullptr;
    btBvhTriangleMeshShape *level_shape = nullptr;
    btCollisionObject level;
    btCapsuleShapeZ *capsule = nullptr;
    std::vector<btPairCachingGhostObject *> ghosts;
    std::vector<btKinematicCharacterController *> characters;
    std::vector<btVector3> starts;
};

extern "C" bullet_walk *bullet_walk_new(const bullet_walk_desc *d)
{
    bullet_walk *b = new (std::nothrow) bullet_walk;
    if (!b)
        return nullptr;
    b->world.setGravity(btVector3(0, 0, btScalar(-d->gravity)));
    b->broadphase.getOverlappingPairCache()->setInternalGhostPairCallback(&b->ghost_pairs);

    b->vertices.resize(3 * (size_t)d->vertex_count);
    for (size_t i = 0; i < b->vertices.size(); i++)
        b->vertices[i] = btScalar(d->vertices[i]);
    b->indices.resize(3 * (size_t)d->triangle_count);
    for (size_t i = 0; i < b->indices.size(); i++)
        b->indices[i] = (int)d->indices[i];
    b->mesh = new btTriangleIndexVertexArray((int)d->triangle_count, b->indices.data(), 3 * (int)sizeof(int),
                                             (int)d->vertex_count, b->vertices.data(), 3 * (int)sizeof(btScalar));
    b->level_shape = new btBvhTriangleMeshShape(b->mesh, true);
    b->level.setCollisionShape(b->level_shape);
    b->level.setCollisionFlags(btCollisionObject::CF_STATIC_OBJECT);
    b->world.addCollisionObject(&b->level, btBroadphaseProxy::StaticFilter,
                                btBroadphaseProxy::AllFilter ^ btBroadphaseProxy::StaticFilter);

    double cylinder = 2.0 * (d->half_height - d->radius);
    b->capsule = new btCapsuleShapeZ(btScalar(d->radius), btScalar(cylinder > 0.0 ? cylinder : 0.0));
    for (uint32_t i = 0; i < d->walkers; i++) {
        btVector3 at(btScalar(d->starts[3 * i]), btScalar(d->starts[3 * i + 1]), btScalar(d->starts[3 * i + 2]));
        b->starts.push_back(at);
        btPairCachingGhostObject *g = new btPairCachingGhostObject;
        btTransform t;
        t.setIdentity();
        t.setOrigin(at);
        g->setWorldTransform(t);
        g->setCollisionShape(b->capsule);
        g->setCollisionFlags(btCollisionObject::CF_CHARACTER_OBJECT);
        btKinematicCharacterController *c =
            new btKinematicCharacterController(g, b->capsule, btScalar(d->step_height), btVector3(0, 0, 1));
        c->setGravity(btVector3(0, 0, btScalar(-d->gravity)));
        /* Bullet's own cap (55, for metres) would let a character that
         * walks off a ledge float down at 55 units a second. */
        c->setFallSpeed(btScalar(d->fall_speed));
        c->setMaxSlope(btScalar(d->max_slope));
        b->world.addCollisionObject(g, btBroadphaseProxy::CharacterFilter,
                                    btBroadphaseProxy::StaticFilter | btBroadphaseProxy::DefaultFilter);
        b->world.addAction(c);
        b->ghosts.push_back(g);
        b->characters.push_back(c);
    }
    return b;
}

extern "C" void bullet_walk_reset(bullet_walk *b)
{
    for (size_t i = 0; i < b->characters.size(); i++) {
        b->characters[i]->reset(&b->world);
        b->characters[i]->warp(b->starts[i]);
    }
}

extern "C" void bullet_walk_step(bullet_walk *b, const double *walk, double dt)
{
    for (size_t i = 0; i < b->characters.size(); i++)
        b->characters[i]->setWalkDirection(
            btVector3(btScalar(walk[3 * i]), btScalar(walk[3 * i + 1]), btScalar(walk[3 * i + 2])));
    /* One fixed step of dt: no substeps, no interpolation. */
    b->world.stepSimulation(btScalar(dt), 0, btScalar(dt));
}

extern "C" void bullet_walk_position(const bullet_walk *b, uint32_t i, double out[3])
{
    const btVector3 &p = b->ghosts[i]->getWorldTransform().getOrigin();
    out[0] = p.x(), out[1] = p.y(), out[2] = p.z();
}

extern "C" void bullet_walk_free(bullet_walk *b)
{
    if (!b)
        return;
    for (size_t i = 0; i < b->characters.size(); i++) {
        b->world.removeAction(b->characters[i]);
        b->world.removeCollisionObject(b->ghosts[i]);
        delete b->characters[i];
        delete b->ghosts[i];
    }
    b->world.removeCollisionObject(&b->level);
    delete b->capsule;
    delete b->level_shape;
    delete b->mesh;
    delete b;
}
